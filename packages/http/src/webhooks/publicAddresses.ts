import { isPublicAddress } from "@dealstream/core"
import { lookup as dnsLookup } from "node:dns"
import { isIP, type LookupFunction } from "node:net"

/** The `code` of the error a refused target fails with, so the transport can word it. */
export const NON_PUBLIC_TARGET = "ERR_NON_PUBLIC_TARGET"

/** The IP literal a URL's hostname is (`[::1]` unbracketed), or null for a name. */
export const ipLiteral = (hostname: string): string | null => {
  const inner = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return isIP(inner) === 0 ? null : inner
}

const refused = (hostname: string) => Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: NON_PUBLIC_TARGET })

/**
 * A `lookup` for sockets that may only reach public addresses. It runs when the connection is made,
 * so a name that resolved to a public address at registration and now resolves to 127.0.0.1 (DNS
 * rebinding) is refused all the same. Every address of the name is checked, not only the one
 * connected to, since happy eyeballs may try any of them. Node skips `lookup` for IP literals:
 * those are checked by the caller with `ipLiteral`.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 0)
    const first = addresses[0]
    if (first === undefined || addresses.some(({ address }) => !isPublicAddress(address))) {
      return callback(refused(hostname), "", 0)
    }
    if (options.all === true) return callback(null, addresses)
    callback(null, first.address, first.family)
  })
}
