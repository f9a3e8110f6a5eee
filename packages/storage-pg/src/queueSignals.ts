import type { QueueSignal, StorageUnavailable } from "@dealstream/core"
import { Effect, Option, Schema, type Stream } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { listenChannel, type ListenOptions } from "./listenChannel.js"

/** The one channel every host of a database listens on for the delivery queue. */
export const CHANNEL = "dealstream_queue"

const Message = Schema.fromJsonString(
  Schema.Union([Schema.TaggedStruct("Scheduled", {}), Schema.TaggedStruct("WebhookDeleted", { webhookId: Schema.String })])
)
const encode = Schema.encodeSync(Message)
const decode = Schema.decodeUnknownOption(Message)

/** NOTIFY through the pool, as `pg_notify` (a bind parameter cannot stand for NOTIFY's payload). */
export const sendSignal =
  (sql: SqlClient) =>
  (signal: QueueSignal): Effect.Effect<void, SqlError> =>
    Effect.asVoid(sql`SELECT pg_notify(${CHANNEL}, ${encode(signal)})`)

/**
 * The signals of every host while the stream is consumed (see listenChannel.ts). A payload this
 * version does not know (a newer host's signal) is not for it. Once listening again after a lost
 * connection it says Scheduled, standing for any new work signalled meanwhile; a WebhookDeleted
 * lost then is made up for by the worker, which looks up the webhooks of its attempts in flight
 * once per poll interval.
 */
export const listenSignals = (options: ListenOptions): Stream.Stream<QueueSignal, StorageUnavailable> =>
  listenChannel(options, {
    name: CHANNEL,
    applicationName: "dealstream-listen",
    decode: (payload) => Option.getOrNull(decode(payload)),
    resumed: { _tag: "Scheduled" }
  })
