import { BlockList, isIP, isIPv4, isIPv6 } from "node:net"

/**
 * Proxies whose `X-Forwarded-For` is believed: addresses (`10.0.0.5`, `::1`) and subnets
 * (`10.0.0.0/8`, `fd00::/8`). None by default: any client can write that header, so only a proxy
 * the operator names can say who its client was.
 */
export interface TrustedProxies {
  readonly entries: ReadonlyArray<string>
  readonly includes: (address: string) => boolean
}

const family = (address: string) => (isIPv6(address) ? "ipv6" : "ipv4") as "ipv4" | "ipv6"

/** Throws a one-line message naming the first entry that is neither an address nor a subnet. */
export const trustedProxies = (entries: ReadonlyArray<string>): TrustedProxies => {
  const list = new BlockList()
  const kept: Array<string> = []
  for (const raw of entries) {
    const entry = raw.trim()
    if (entry === "") continue
    const slash = entry.indexOf("/")
    const address = slash < 0 ? entry : entry.slice(0, slash)
    const prefixText = slash < 0 ? "" : entry.slice(slash + 1)
    const prefix = Number(prefixText)
    const max = isIPv4(address) ? 32 : 128
    if (isIP(address) === 0 || (slash >= 0 && (!/^\d{1,3}$/.test(prefixText) || prefix > max))) {
      throw new Error(`${JSON.stringify(entry)} is not an IP address or subnet (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)`)
    }
    if (slash < 0) list.addAddress(address, family(address))
    else list.addSubnet(address, prefix, family(address))
    kept.push(entry)
  }
  return { entries: kept, includes: (address) => kept.length > 0 && isIP(address) !== 0 && list.check(address, family(address)) }
}

/** `::ffff:192.0.2.1` (an IPv4 client of a dual-stack socket) is `192.0.2.1`; a zone (`%eth0`) is dropped. */
const normalize = (address: string): string => {
  const bare = address.replace(/%.*$/, "")
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  return mapped !== null ? mapped[1]! : bare
}

/**
 * The client a request is counted against: the socket's peer, or, when that peer is a trusted
 * proxy, the nearest address in `X-Forwarded-For` (read from the right, where each proxy appends
 * the address it was connected from) that is not itself a trusted proxy. What a client wrote into
 * the header before its first trusted proxy is never reached. An entry that is not a bare address
 * (a port attached, a name) stops the walk: the last trusted proxy then stands for the client.
 */
export const clientAddress = (peer: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string | undefined => {
  if (peer === undefined) return undefined
  let client = normalize(peer)
  if (forwardedFor === undefined || !trusted.includes(client)) return client
  const hops = forwardedFor.split(",")
  while (hops.length > 0 && trusted.includes(client)) {
    const next = normalize(hops.pop()!.trim())
    if (isIP(next) === 0) break
    client = next
  }
  return client
}

/** Eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
const groupsOf = (address: string): Array<number> => {
  let text = address
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split("::") as [string, string | undefined]
  const parse = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)))
  const left = parse(head)
  const right = parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/**
 * The bucket of a client address. An IPv4 address is its own bucket; an IPv6 client is counted by
 * its /64, since one machine is commonly given a whole /64 and could otherwise take a fresh
 * bucket per request. Requests with no address (a Unix socket) share one bucket.
 */
export const addressBucket = (address: string | undefined): string => {
  if (address === undefined) return "local"
  if (!isIPv6(address)) return address
  return `${groupsOf(address)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`
}
