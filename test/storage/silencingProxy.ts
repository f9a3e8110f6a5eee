import { Effect } from "effect"
import { type AddressInfo, connect, createServer, type Socket } from "node:net"

/**
 * A TCP proxy to the server of a database URL. `silence` makes every connection open so far go
 * quiet: what either side sends is dropped and nothing is closed, as when a peer vanishes without a
 * word (a network partition that drops packets, a frozen server). The proxy's own sockets still
 * take what the client sends, so the client's TCP stack sees every byte acknowledged and neither
 * retransmits nor gives up: only a deadline of its own ends its wait.
 */
export interface SilencingProxy {
  /** The same database URL, through the proxy. */
  readonly url: string
  /** Silences the open connections; connections made afterwards pass as usual. */
  readonly silence: () => void
  /** Silences the open connections and every one made afterwards (accepted, never answered). */
  readonly partition: () => void
  readonly close: () => Promise<void>
}

/** Reads and drops what a socket receives, so that it keeps acknowledging and never fills up. */
const drain = (socket: Socket) => socket.on("data", () => {})

export const startSilencingProxy = (databaseUrl: string): Promise<SilencingProxy> =>
  new Promise((resolve) => {
    const target = new URL(databaseUrl)
    const open = new Set<readonly [Socket, Socket]>()
    /** Connections accepted during a partition, never forwarded. */
    const held = new Set<Socket>()
    let partitioned = false
    const server = createServer((client) => {
      if (partitioned) {
        held.add(client)
        drain(client)
          .on("error", () => client.destroy())
          .on("close", () => held.delete(client))
        return
      }
      const upstream = connect(Number(target.port || 5432), target.hostname)
      const pair = [client, upstream] as const
      open.add(pair)
      const end = () => {
        open.delete(pair)
        client.destroy()
        upstream.destroy()
      }
      for (const socket of pair) socket.on("error", end).on("close", end)
      client.pipe(upstream)
      upstream.pipe(client)
    })
    const silence = () => {
      for (const [client, upstream] of open) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        drain(client)
        drain(upstream)
      }
    }
    server.listen(0, "127.0.0.1", () => {
      const proxied = new URL(databaseUrl)
      proxied.hostname = "127.0.0.1"
      proxied.port = String((server.address() as AddressInfo).port)
      resolve({
        url: proxied.toString(),
        silence,
        partition: () => {
          partitioned = true
          silence()
        },
        close: () =>
          new Promise((closed) => {
            for (const pair of open) for (const socket of pair) socket.destroy()
            for (const socket of held) socket.destroy()
            server.close(() => closed())
          })
      })
    })
  })

/** The proxy for the length of a scope. */
export const silencingProxy = (databaseUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(() => startSilencingProxy(databaseUrl)),
    (proxy) => Effect.promise(proxy.close)
  )
