import { Engine, type Json, type RequestContext, type StorageUnavailable, ValidationError } from "@dealstream/core"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { Clock, Context, Effect, Fiber, Layer, Semaphore } from "effect"
import { IdempotencyConflict } from "./errors/HttpErrors.js"
import { IDEMPOTENCY_KEY_MESSAGE, MAX_IDEMPOTENCY_KEY_LENGTH } from "./parameters.js"
import { type Reply, respond } from "./replies.js"

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export const fingerprint = (method: string, path: string, body: unknown): string =>
  `${method} ${path} ${createHash("sha256").update(canonical(body)).digest("hex")}`

export interface Applied {
  readonly resource: string
  readonly id: string
}

export interface IdempotentRepliesService {
  /**
   * Runs a POST under its `Idempotency-Key` (when it has one): a stored answer for the same request
   * is replayed without running anything, a stored answer for another request is a conflict, and
   * only a 2xx answer is stored, so a failed attempt can be retried with the same key.
   */
  readonly run: <E, E2 = never, C extends RequestContext = RequestContext>(
    ctx: C,
    request: HttpServerRequest.HttpServerRequest,
    body: unknown,
    /**
     * The answer, from the caller as the write is to be made: under a key, the context names it, so
     * the write's own commit records it (the engine's RequestContext.idempotency).
     */
    reply: (ctx: C) => Effect.Effect<Reply, E>,
    /**
     * The answer again, from the record the write left, for a key whose write committed but whose
     * answer was never stored (the host stopped in between). Without it such a retry is a conflict.
     */
    recover?: (applied: Applied) => Effect.Effect<Reply, E2>,
    options?: {
      /**
       * false: the answer is never stored, so a retry under the key is answered by `recover` from
       * what the write's commit recorded (POST /v1/api-keys: its answer holds a key that must be
       * shown once and stored nowhere).
       */
      readonly storeAnswer?: boolean
    }
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E | E2 | ValidationError | IdempotencyConflict | StorageUnavailable>
}

export class IdempotentReplies extends Context.Service<IdempotentReplies, IdempotentRepliesService>()(
  "@dealstream/http/IdempotentReplies"
) {}

/**
 * A write runs to its end even when its client goes away: the server interrupts a request whose
 * socket closed, and a non-atomic batch interrupted part-way would stay half applied, its key
 * claimed by the first commit, so that its retry is refused as applied (a resumed import lost the
 * rest of a batch this way). The write runs in a fiber of its own; only the waiting is abandoned.
 */
const finishedEvenIfAbandoned = <A, E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.forkDetach(write), Fiber.join)

export const IdempotentRepliesLive = Layer.effect(
  IdempotentReplies,
  Effect.gen(function* () {
    const engine = yield* Engine
    // Two concurrent requests with one key would both miss the store and both run; within this
    // process they take turns instead. (Across hosts the window remains: the store has no lock.)
    const locks = new Map<string, { readonly lock: Semaphore.Semaphore; users: number }>()
    // Held until a write's answer is stored, even when its client goes away, so a retry waits for
    // it rather than finding the key claimed and no answer.
    const withLock = <A, E>(name: string, effect: Effect.Effect<A, E>) =>
      finishedEvenIfAbandoned(
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const entry = locks.get(name) ?? { lock: Semaphore.makeUnsafe(1), users: 0 }
            entry.users++
            locks.set(name, entry)
            return entry
          }),
          (entry) => entry.lock.withPermits(1)(effect),
          (entry) =>
            Effect.sync(() => {
              if (--entry.users === 0) locks.delete(name)
            })
        )
      )

    return IdempotentReplies.of({
      run: (ctx, request, body, reply, recover, options) => {
        const key = request.headers["idempotency-key"]
        if (key === undefined) return Effect.map(finishedEvenIfAbandoned(reply(ctx)), (r) => respond(r))
        // The endpoints' header schema refuses such a key first (parameters.ts); this guards any other caller.
        if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
          return Effect.fail(ValidationError.at("Idempotency-Key", IDEMPOTENCY_KEY_MESSAGE))
        }
        const print = fingerprint(request.method, new URL(request.url, "http://localhost").pathname, body)
        return withLock(
          `${ctx.workspaceId}\u0000${key}`,
          Effect.gen(function* () {
            const stored = yield* engine.idempotency.get(ctx, key)
            if (stored !== null) {
              if (stored.fingerprint !== print) {
                return yield* new IdempotencyConflict({
                  message: "this Idempotency-Key was already used with another method, path or body"
                })
              }
              if (stored.status === null) {
                const applied = stored.applied ?? null
                if (recover === undefined || applied === null) {
                  return yield* new IdempotencyConflict({
                    message: "the request made with this Idempotency-Key was applied, but its answer was lost; read the record"
                  })
                }
                return respond(yield* recover(applied), { "idempotent-replayed": "true" })
              }
              return respond(
                { status: stored.status, body: stored.body, location: stored.location, version: null },
                { "idempotent-replayed": "true" }
              )
            }
            // The write's own commit records the key too, so that even a host stopping before the
            // answer below is stored cannot let a retry apply it twice.
            const answer = yield* reply({ ...ctx, idempotency: { key, fingerprint: print } })
            if (answer.status >= 200 && answer.status < 300 && options?.storeAnswer !== false) {
              const now = yield* Clock.currentTimeMillis
              // The write already happened: failing to remember it must not turn success into an error.
              yield* engine.idempotency
                .put(ctx, key, {
                  fingerprint: print,
                  status: answer.status,
                  body: answer.body satisfies Json | null,
                  location: answer.location,
                  created_at: new Date(now).toISOString()
                })
                .pipe(Effect.catch((error) => Effect.logWarning("idempotency key not stored", error.message)))
            }
            return respond(answer)
          })
        )
      }
    })
  })
)
