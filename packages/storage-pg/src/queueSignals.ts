import type { QueueSignal, StorageUnavailable } from "@dealstream/core"
import { type Cause, Effect, Option, Queue, Schema, Stream } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { listenChannel, type ListenOptions } from "./listenChannel.js"

/** The one channel every host of a database listens on for the delivery queue. */
export const CHANNEL = "dealstream_queue"

// `from` names the sending queue, so that its own subscribers, told at once, skip the echo. Hosts
// that predate it send none, and ignore it (a struct's unknown keys are dropped).
const Message = Schema.fromJsonString(
  Schema.Union([
    Schema.TaggedStruct("Scheduled", { from: Schema.optional(Schema.String) }),
    Schema.TaggedStruct("WebhookDeleted", { webhookId: Schema.String, from: Schema.optional(Schema.String) })
  ])
)
const encode = Schema.encodeSync(Message)
const decode = Schema.decodeUnknownOption(Message)

/**
 * NOTIFY through the pool, as `pg_notify` (a bind parameter cannot stand for NOTIFY's payload);
 * `from`, the sending queue's id (see `queueSignals`), when it tells its own subscribers itself.
 */
export const sendSignal =
  (sql: SqlClient, from?: string) =>
  (signal: QueueSignal): Effect.Effect<void, SqlError> =>
    Effect.asVoid(sql`SELECT pg_notify(${CHANNEL}, ${encode(from === undefined ? signal : { ...signal, from })})`)

/**
 * The signals of every host while the stream is consumed (see listenChannel.ts), but those the
 * queue `self` sent. A payload this version does not know (a newer host's signal) is not for it.
 * Once listening again after a lost connection it says Scheduled, standing for any new work
 * signalled meanwhile; a WebhookDeleted lost then is made up for by the worker, which looks up the
 * webhooks of its attempts in flight once per poll interval.
 */
const listenSignals = (options: ListenOptions, self: string): Stream.Stream<QueueSignal, StorageUnavailable> =>
  listenChannel(options, {
    name: CHANNEL,
    applicationName: "dealstream-listen",
    decode: (payload) => {
      const message = Option.getOrNull(decode(payload))
      if (message === null || message.from === self) return null
      return message._tag === "Scheduled" ? { _tag: "Scheduled" } : { _tag: "WebhookDeleted", webhookId: message.webhookId }
    },
    resumed: { _tag: "Scheduled" }
  })

export interface QueueSignals {
  readonly signal: (signal: QueueSignal) => Effect.Effect<void, SqlError>
  readonly signals: Stream.Stream<QueueSignal, StorageUnavailable>
}

/**
 * The queue's signals, its own told to its subscribers at once and to other hosts by NOTIFY. Through
 * the server, a commit's signal reached the worker beside it only after a NOTIFY, its delivery to
 * the LISTEN connection, and a turn of each process: on a loopback where waking an idle process
 * costs about 0.4 ms, about a millisecond of a webhook's commit-to-receipt latency (bench/ANALYSIS.md,
 * issue 32). Told here, it also reaches them when the NOTIFY fails; workers poll for the rest.
 */
export const queueSignals = (sql: SqlClient, listen: ListenOptions): QueueSignals => {
  const self = crypto.randomUUID()
  const subscribers = new Set<Queue.Queue<QueueSignal, Cause.Done>>()
  const here: Stream.Stream<QueueSignal> = Stream.callback<QueueSignal>((queue) =>
    Effect.acquireRelease(
      Effect.sync(() => subscribers.add(queue)),
      () => Effect.sync(() => subscribers.delete(queue))
    )
  )
  return {
    signal: (signal) =>
      Effect.andThen(
        Effect.sync(() => {
          for (const queue of subscribers) Queue.offerUnsafe(queue, signal)
        }),
        sendSignal(sql, self)(signal)
      ),
    signals: Stream.merge(here, listenSignals(listen, self))
  }
}
