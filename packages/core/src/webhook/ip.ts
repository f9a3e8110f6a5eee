/**
 * What kind of network an IP literal points into. Webhook targets must be public: anything else
 * would let a workspace make the service call into its own network (SSRF).
 */
export type IpClass = "public" | "loopback" | "private" | "link_local" | "unspecified" | "multicast" | "reserved" | "invalid"

// Strict dotted decimal: a leading zero is refused because some resolvers read `010` as octal.
const OCTET = /^(?:0|[1-9]\d{0,2})$/

const parseIpv4 = (text: string): number | null => {
  const parts = text.split(".")
  if (parts.length !== 4) return null
  let value = 0
  for (const part of parts) {
    if (!OCTET.test(part) || Number(part) > 255) return null
    value = value * 256 + Number(part)
  }
  return value
}

const v4 = (a: number, b: number, c: number, d: number): number => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0

// Most specific first. Documentation, benchmarking and protocol blocks are never a real receiver.
const IPV4_BLOCKS: ReadonlyArray<readonly [base: number, bits: number, kind: IpClass]> = [
  [v4(0, 0, 0, 0), 32, "unspecified"],
  // Linux connects 0.x.x.x to the local host, so the whole block is refused.
  [v4(0, 0, 0, 0), 8, "reserved"],
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 168, 0, 0), 16, "private"],
  // Carrier-grade NAT: shared, not globally reachable.
  [v4(100, 64, 0, 0), 10, "private"],
  [v4(169, 254, 0, 0), 16, "link_local"],
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(240, 0, 0, 0), 4, "reserved"],
  [v4(192, 0, 0, 0), 24, "reserved"],
  [v4(192, 0, 2, 0), 24, "reserved"],
  [v4(198, 18, 0, 0), 15, "reserved"],
  [v4(198, 51, 100, 0), 24, "reserved"],
  [v4(203, 0, 113, 0), 24, "reserved"]
]

const inBlock = (address: number, base: number, bits: number): boolean => bits === 0 || address >>> (32 - bits) === base >>> (32 - bits)

const classifyIpv4 = (address: number): IpClass => IPV4_BLOCKS.find(([base, bits]) => inBlock(address, base, bits))?.[2] ?? "public"

const HEXTET = /^[0-9A-Fa-f]{1,4}$/

/** The eight 16-bit groups, with `::` expanded and a trailing dotted IPv4 turned into two groups. */
const parseIpv6 = (text: string): ReadonlyArray<number> | null => {
  const halves = text.split("::")
  if (halves.length > 2) return null
  const groupsOf = (half: string | undefined, last: boolean): Array<number> | null => {
    if (half === undefined || half === "") return []
    const parts = half.split(":")
    const groups: Array<number> = []
    for (const [i, part] of parts.entries()) {
      if (last && i === parts.length - 1 && part.includes(".")) {
        const embedded = parseIpv4(part)
        if (embedded === null) return null
        groups.push(embedded >>> 16, embedded & 0xffff)
      } else if (HEXTET.test(part)) {
        groups.push(parseInt(part, 16))
      } else {
        return null
      }
    }
    return groups
  }
  const compressed = halves.length === 2
  const head = groupsOf(halves[0], !compressed)
  const tail = compressed ? groupsOf(halves[1], true) : []
  if (head === null || tail === null) return null
  const explicit = head.length + tail.length
  if (compressed ? explicit > 7 : explicit !== 8) return null
  return [...head, ...Array<number>(8 - explicit).fill(0), ...tail]
}

const embeddedIpv4 = (high: number, low: number): number => ((high << 16) | low) >>> 0

const classifyIpv6 = (g: ReadonlyArray<number>): IpClass => {
  const at = (i: number): number => g[i] ?? 0
  const zeroUpTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0)
  const lastFour = embeddedIpv4(at(6), at(7))
  if (zeroUpTo(8)) return "unspecified"
  if (zeroUpTo(7) && at(7) === 1) return "loopback"
  // IPv4-mapped (::ffff:a.b.c.d, also written ::ffff:7f00:1) and IPv4-translated (::ffff:0:a.b.c.d)
  // reach the embedded IPv4 address, so they are what it is.
  if (zeroUpTo(5) && at(5) === 0xffff) return classifyIpv4(lastFour)
  if (zeroUpTo(4) && at(4) === 0xffff && at(5) === 0) return classifyIpv4(lastFour)
  // Deprecated IPv4-compatible addresses (::a.b.c.d): some stacks still route them.
  if (zeroUpTo(6)) return "reserved"
  // NAT64 translates 64:ff9b::a.b.c.d to a.b.c.d.
  if (at(0) === 0x64 && at(1) === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIpv4(lastFour)
  // 6to4 relays reach the IPv4 address held in bits 16..48.
  if (at(0) === 0x2002) return classifyIpv4(embeddedIpv4(at(1), at(2)))
  if ((at(0) & 0xfe00) === 0xfc00) return "private"
  if ((at(0) & 0xffc0) === 0xfe80) return "link_local"
  // Site-local, deprecated but still a private network where it is in use.
  if ((at(0) & 0xffc0) === 0xfec0) return "private"
  if ((at(0) & 0xff00) === 0xff00) return "multicast"
  // Teredo (2001::/32), benchmarking (2001:2::/48), documentation (2001:db8::/32).
  if (at(0) === 0x2001 && (at(1) === 0 || at(1) === 0xdb8 || (at(1) === 2 && at(2) === 0))) return "reserved"
  // Only 2000::/3 is allocated for global unicast; the rest (discard 100::/64, local-use NAT64
  // 64:ff9b:1::/48, unassigned space) is never a real receiver.
  return (at(0) & 0xe000) === 0x2000 ? "public" : "reserved"
}

/**
 * Classifies an IPv4 or IPv6 literal: `203.0.113.7`, `::1`, `[fe80::1]`, `fe80::1%eth0`. A host
 * name, a shortened IPv4 form (`127.1`) or anything malformed is `invalid`.
 */
export const classifyIp = (address: string): IpClass => {
  const bracketed = address.startsWith("[") && address.endsWith("]")
  const inner = bracketed ? address.slice(1, -1) : address
  if (!inner.includes(":")) {
    if (bracketed) return "invalid"
    const parsed = parseIpv4(inner)
    return parsed === null ? "invalid" : classifyIpv4(parsed)
  }
  const zone = inner.indexOf("%")
  if (zone === inner.length - 1) return "invalid"
  const groups = parseIpv6(zone === -1 ? inner : inner.slice(0, zone))
  return groups === null ? "invalid" : classifyIpv6(groups)
}

export const isPublicAddress = (address: string): boolean => classifyIp(address) === "public"
