import { describe, expect, it } from "vitest"
import { addressBucket, clientAddress, trustedProxies } from "./clientAddress.js"

const none = trustedProxies([])

describe("clientAddress", () => {
  it("is the socket's peer, whatever X-Forwarded-For says, when no proxy is trusted", () => {
    expect(clientAddress("198.51.100.7", "203.0.113.1", none)).toBe("198.51.100.7")
    expect(clientAddress("::ffff:198.51.100.7", undefined, none)).toBe("198.51.100.7")
    expect(clientAddress(undefined, "203.0.113.1", none)).toBeUndefined()
  })

  it("behind trusted proxies, is the nearest untrusted hop from the right; what the client wrote before is not reached", () => {
    const proxies = trustedProxies(["10.0.0.0/8", "fd00::1"])
    // The client forged a first entry; the edge proxy appended the address it saw.
    expect(clientAddress("10.0.0.2", "1.1.1.1, 203.0.113.9, 10.0.0.1", proxies)).toBe("203.0.113.9")
    expect(clientAddress("fd00::1", "203.0.113.9", proxies)).toBe("203.0.113.9")
    expect(clientAddress("::ffff:10.0.0.2", "2001:db8::5", proxies)).toBe("2001:db8::5")
    // A peer that is not a trusted proxy is the client, even if it sends the header.
    expect(clientAddress("198.51.100.7", "203.0.113.9", proxies)).toBe("198.51.100.7")
    // A trusted peer without the header, or with only trusted hops, stands for itself (the last one reached).
    expect(clientAddress("10.0.0.2", undefined, proxies)).toBe("10.0.0.2")
    expect(clientAddress("10.0.0.2", "10.0.0.3", proxies)).toBe("10.0.0.3")
    // A malformed hop stops the walk at the last trusted proxy.
    expect(clientAddress("10.0.0.2", "203.0.113.9:4711", proxies)).toBe("10.0.0.2")
    expect(clientAddress("10.0.0.2", "", proxies)).toBe("10.0.0.2")
  })

  it("refuses a trusted proxy entry that is not an address or a subnet", () => {
    expect(trustedProxies([" 10.0.0.5 ", "", "fd00::/8"]).entries).toEqual(["10.0.0.5", "fd00::/8"])
    for (const bad of ["proxy.internal", "10.0.0.0/33", "10.0.0.0/", "fd00::/129", "10.0.0.0/8x", "10.0.0.256"]) {
      expect(() => trustedProxies([bad]), bad).toThrow(/is not an IP address or subnet/)
    }
  })
})

describe("addressBucket", () => {
  it("counts IPv4 by address and IPv6 by /64", () => {
    expect(addressBucket("198.51.100.7")).toBe("198.51.100.7")
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64")
    expect(addressBucket("2001:DB8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64")
    expect(addressBucket("2001:db8::1")).toBe("2001:db8:0:0::/64")
    expect(addressBucket("::1")).toBe("0:0:0:0::/64")
    expect(addressBucket("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64")
    expect(addressBucket(clientAddress("fe80::1%eth0", undefined, none))).toBe("fe80:0:0:0::/64")
    expect(addressBucket(undefined)).toBe("local")
  })
})
