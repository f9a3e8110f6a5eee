import { connect, createServer, type Server, type Socket } from "node:net"

/**
 * A TCP proxy on 127.0.0.1 in front of a server, for faults a real network has: every open
 * connection cut at once (both ends reset, as when a server or a middlebox drops them), and new
 * connections refused for a while (accepted and reset at once, as when nothing listens).
 */
export interface TcpProxy {
  readonly port: number
  /** Connections open right now (client side). */
  readonly open: () => number
  /** Connections accepted so far, refused ones included. */
  readonly accepted: () => number
  /** Resets every open connection; returns how many there were. */
  readonly cutAll: () => number
  /** While on, a new connection is reset as soon as it is accepted. */
  readonly refuse: (on: boolean) => void
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> => {
  const pairs = new Set<readonly [Socket, Socket]>()
  let refusing = false
  let accepted = 0

  const server: Server = createServer((client) => {
    accepted++
    if (refusing) {
      client.resetAndDestroy()
      return
    }
    const upstream = connect(targetPort, targetHost)
    const pair = [client, upstream] as const
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0

  const cutAll = () => {
    const open = [...pairs]
    pairs.clear()
    for (const [client, upstream] of open) {
      client.resetAndDestroy()
      upstream.resetAndDestroy()
    }
    return open.length
  }

  return {
    port,
    open: () => pairs.size,
    accepted: () => accepted,
    cutAll,
    refuse: (on) => {
      refusing = on
    },
    close: () =>
      new Promise<void>((resolve) => {
        cutAll()
        server.close(() => resolve())
      })
  }
}

/** The same database URL, through the proxy. */
export const viaProxy = (databaseUrl: string, proxy: TcpProxy): string => {
  const url = new URL(databaseUrl)
  url.hostname = "127.0.0.1"
  url.port = String(proxy.port)
  return url.toString()
}
