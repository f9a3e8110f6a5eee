import { describe, expect, it } from "@effect/vitest"
import { prop } from "../testing/property.js"
import * as fc from "fast-check"
import type { IpClass } from "./ip.js"
import { classifyIp, isPublicAddress } from "./ip.js"

const table: ReadonlyArray<readonly [string, IpClass]> = [
  // IPv4
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.128.0.0", "public"],
  ["223.255.255.255", "public"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "reserved"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.255", "private"],
  ["169.254.169.254", "link_local"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["192.0.2.10", "reserved"],
  ["198.18.0.1", "reserved"],
  ["198.51.100.1", "reserved"],
  ["203.0.113.1", "reserved"],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["2606:4700:4700::1111", "public"],
  ["[2001:4860:4860::8888]", "public"],
  ["fc00::1", "private"],
  ["fd12:3456:789a::1", "private"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:a9fe:a9fe", "link_local"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:0:127.0.0.1", "loopback"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::8.8.8.8", "public"],
  ["64:ff9b:1::1", "reserved"],
  ["2002:c0a8:0101::1", "private"],
  ["2002:0808:0808::1", "public"],
  ["::127.0.0.1", "reserved"],
  ["2001:db8::1", "reserved"],
  ["2001::1", "reserved"],
  ["100::1", "reserved"],
  ["4000::1", "reserved"],
  // Not IP literals
  ["example.com", "invalid"],
  ["", "invalid"],
  ["127.1", "invalid"],
  ["127.0.0.01", "invalid"],
  ["256.0.0.1", "invalid"],
  ["1.2.3.4.5", "invalid"],
  ["[127.0.0.1]", "invalid"],
  ["::1::", "invalid"],
  ["1:2:3:4:5:6:7:8:9", "invalid"],
  ["1:2:3:4:5:6:7", "invalid"],
  ["1:2:3:4:5:6:7::8", "invalid"],
  ["12345::1", "invalid"],
  ["::ffff:1.2.3", "invalid"],
  ["1.2.3.4::", "invalid"],
  ["fe80::1%", "invalid"],
  ["[::1", "invalid"]
]

describe("classifyIp", () => {
  it.each(table)("classifies %s as %s", (address, kind) => {
    expect(classifyIp(address)).toBe(kind)
  })

  it("calls only public addresses public", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true)
    expect(isPublicAddress("::ffff:127.0.0.1")).toBe(false)
    expect(isPublicAddress("example.com")).toBe(false)
  })

  // An independent reading of the IPv4 special-purpose blocks, by octets rather than bit masks.
  const reference = ([a = 0, b = 0, c = 0, d = 0]: ReadonlyArray<number>): IpClass => {
    if (a === 0) return b === 0 && c === 0 && d === 0 ? "unspecified" : "reserved"
    if (a === 127) return "loopback"
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private"
    if (a === 100 && b >= 64 && b <= 127) return "private"
    if (a === 169 && b === 254) return "link_local"
    if (a >= 224 && a <= 239) return "multicast"
    if (a >= 240) return "reserved"
    if (a === 192 && b === 0 && (c === 0 || c === 2)) return "reserved"
    if (a === 198 && (b === 18 || b === 19)) return "reserved"
    if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return "reserved"
    return "public"
  }

  // Low first octets are drawn often enough to hit every block.
  const octet = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255))

  prop("agrees with the reference on random IPv4 addresses", [fc.array(octet, { minLength: 4, maxLength: 4 })], ([octets]) => {
    expect(classifyIp(octets.join("."))).toBe(reference(octets))
  })

  prop("gives an IPv4-mapped address the class of its IPv4 address", [fc.array(octet, { minLength: 4, maxLength: 4 })], ([octets]) => {
    const [a = 0, b = 0, c = 0, d = 0] = octets
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
    expect(classifyIp(`::ffff:${octets.join(".")}`)).toBe(reference(octets))
    expect(classifyIp(`[::ffff:${hex}]`)).toBe(reference(octets))
  })
})
