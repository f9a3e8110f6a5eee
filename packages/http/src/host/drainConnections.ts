import type { Server } from "node:http"
import { Effect } from "effect"

const GRACE_MS = 10_000

/**
 * Graceful stop: refuse new connections, let requests in flight finish, then close what is left.
 * Runs before @effect/platform-node's own close, which waits for connections to end on their own
 * (up to 20 s, keep-alive ones included) and then removes the request handler, which would leave a
 * request arriving on a kept-alive connection after that unanswered.
 */
export const drainConnections = (server: Server): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (!server.listening) return resume(Effect.void)
    const deadline = Date.now() + GRACE_MS
    let closed = false
    server.close(() => {
      closed = true
    })
    // Connections that finished their request become idle; close them as they do.
    const timer = setInterval(() => {
      server.closeIdleConnections()
      if (closed || Date.now() > deadline) {
        clearInterval(timer)
        server.closeAllConnections()
        resume(Effect.void)
      }
    }, 20)
  })
