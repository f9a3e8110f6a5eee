/**
 * Connection URLs naming several servers, as libpq writes them:
 * `postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`. The WHATWG URL parser
 * (and so @effect/sql-pg, which connects to one host) refuses a comma-separated authority, so the
 * URL is split here into one ordinary URL per host, each the original with only its host part
 * replaced: user, password, database and parameters stay exactly as written.
 */

export interface HostAddress {
  /** A name or an address; an IPv6 address without its brackets. */
  readonly host: string
  readonly port: number
}

export interface DatabaseHosts {
  /** In the URL's order, which is the order the primary is looked for in. */
  readonly hosts: ReadonlyArray<HostAddress>
  /** The URL to reach one of them alone (the URL as given when there is one host). */
  readonly urlOf: (host: HostAddress) => string
  /** `target_session_attrs` as written, or null. */
  readonly targetSessionAttrs: string | null
}

/** A URL or host list that cannot be read; the message never repeats the URL (it may hold a password). */
export class HostsProblem extends Error {}

interface Parts {
  /** `postgres://` and `user:password@`, as written. */
  readonly head: string
  readonly authority: string
  /** Path, query and fragment, as written. */
  readonly tail: string
}

const split = (url: string): Parts => {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url)
  if (scheme === null) throw new HostsProblem("not a postgres:// URL")
  const rest = url.slice(scheme[0].length)
  const end = rest.search(/[/?#]/)
  const authority = end === -1 ? rest : rest.slice(0, end)
  const at = authority.lastIndexOf("@")
  return {
    head: scheme[0] + authority.slice(0, at + 1),
    authority: authority.slice(at + 1),
    tail: end === -1 ? "" : rest.slice(end)
  }
}

const DEFAULT_PORT = 5432

/** One `host`, `host:port`, `[v6]` or `[v6]:port` of a host list. */
const hostOf = (entry: string): HostAddress => {
  const text = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text)
  const [host, port] =
    bracketed !== null
      ? [bracketed[1]!, bracketed[2]]
      : text.includes(":")
        ? [text.slice(0, text.lastIndexOf(":")), text.slice(text.lastIndexOf(":") + 1)]
        : [text, undefined]
  if (host === "" || /[\s/?#@[\]]/.test(host)) throw new HostsProblem(`${JSON.stringify(entry)} is not a host`)
  if (port === undefined || port === "") return { host, port: DEFAULT_PORT }
  const number = Number(port)
  if (!/^\d+$/.test(port) || number < 1 || number > 65535) throw new HostsProblem(`${JSON.stringify(entry)} has no valid port`)
  return { host, port: number }
}

/** `host:port` as a URL writes it (an IPv6 address in brackets). */
export const hostText = ({ host, port }: HostAddress): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/** A comma-separated list of hosts (`h1:5432,h2:5433`; a host without a port is on 5432). */
export const parseHostList = (list: string): ReadonlyArray<HostAddress> => {
  const entries = list.split(",")
  if (entries.some((entry) => entry.trim() === "")) throw new HostsProblem("the host list has an empty entry")
  return entries.map(hostOf)
}

const targetSessionAttrsOf = (tail: string): string | null => {
  const query = tail.indexOf("?")
  if (query === -1) return null
  return new URLSearchParams(tail.slice(query + 1).split("#")[0]).get("target_session_attrs")
}

/**
 * The hosts of a URL. One host (or none: the driver's default) leaves the URL as it is. Several
 * need each a host part that the URL parser accepts, and a `target_session_attrs` that asks for
 * the primary, if any: dealstream writes, so it always looks for the primary.
 */
export const databaseHosts = (url: string): DatabaseHosts => {
  const { authority, head, tail } = split(url)
  const targetSessionAttrs = targetSessionAttrsOf(tail)
  if (!authority.includes(",")) {
    const hosts = authority === "" ? [] : [hostOf(authority)]
    return { hosts, urlOf: () => url, targetSessionAttrs }
  }
  const hosts = parseHostList(authority)
  if (targetSessionAttrs !== null && !["any", "read-write", "primary"].includes(targetSessionAttrs)) {
    throw new HostsProblem(
      `target_session_attrs=${targetSessionAttrs} is not served: dealstream writes, so it connects to the primary (read-write)`
    )
  }
  return { hosts, urlOf: (host) => `${head}${hostText(host)}${tail}`, targetSessionAttrs }
}

/** The URL with its host part replaced by a host list (`DEALSTREAM_DATABASE_HOSTS`). */
export const withHosts = (url: string, list: string): string => {
  const { head, tail } = split(url)
  return `${head}${parseHostList(list).map(hostText).join(",")}${tail}`
}

/** `h1:5432,h2:5433/database` of a URL, never its password; null when it cannot be read. */
export const hostsTargetOf = (url: string): string | null => {
  try {
    const { authority, tail } = split(url)
    const hosts = authority === "" ? [{ host: "localhost", port: DEFAULT_PORT }] : parseHostList(authority)
    const path = tail.split(/[?#]/)[0]!.replace(/^\//, "")
    const database = decodeURIComponent(path) || "postgres"
    return `${hosts.map(hostText).join(",")}/${database}`
  } catch {
    return null
  }
}

/**
 * What is wrong with a database URL, in words that never repeat it, or null when every host of it
 * can be connected to (as far as reading the URL tells).
 */
export const databaseUrlProblem = (url: string): string | null => {
  try {
    const { hosts, urlOf } = databaseHosts(url)
    const urls = hosts.length === 0 ? [url] : hosts.map(urlOf)
    return urls.every((each) => URL.canParse(each)) ? null : "not a postgres:// URL"
  } catch (error) {
    return error instanceof HostsProblem ? error.message : String(error)
  }
}
