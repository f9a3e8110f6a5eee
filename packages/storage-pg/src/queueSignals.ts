import { type QueueSignal, StorageUnavailable } from "@dealstream/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Clock, Duration, Effect, identity, Option, Queue, Redacted, Schedule, Schema, Stream } from "effect"
import { reasonOf } from "./errors.js"

/** The one channel every host of a database listens on. */
export const CHANNEL = "dealstream_queue"

const Message = Schema.parseJson(Schema.Union(
  Schema.TaggedStruct("Scheduled", {}),
  Schema.TaggedStruct("WebhookDeleted", { webhookId: Schema.String }),
  // A listener's own round trip through the server: see `listenSignals`.
  Schema.TaggedStruct("Heartbeat", { listener: Schema.String, beat: Schema.Number })
))
const encode = Schema.encodeSync(Message)
const decode = Schema.decodeUnknownOption(Message)

/** NOTIFY through the pool (PgClient.notify of @effect/sql-pg 0.53.0 sends `NOTIFY ch, $1`, which PostgreSQL refuses). */
export const sendSignal = (sql: SqlClient) => (signal: QueueSignal): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql`SELECT pg_notify(${CHANNEL}, ${encode(signal)})`)

export interface ListenOptions {
  readonly url: string
  readonly connectTimeout: Duration.DurationInput
  /** How often the listener checks that its connection still hears the channel. */
  readonly heartbeat: Duration.DurationInput
}

const unavailable = (error: SqlError) => new StorageUnavailable({ message: `PostgreSQL is unavailable: ${reasonOf(error)}` })

// Heartbeats, timeouts and reconnect delays are about the wire, so they run on real time even when
// the consumer runs on a TestClock.
const realClock = Clock.make()

/**
 * One connection's worth of signals. The LISTEN connection is @effect/sql-pg's own (`listen` on a
 * dedicated client), which swallows that client's errors: a dropped connection would just go
 * quiet. So the listener sends itself a Heartbeat on the shared channel every `heartbeat` and
 * fails with StorageUnavailable when it does not hear it back in time; the first one also tells
 * when LISTEN is in place. The session has a client of its own (a one-connection pool for the
 * heartbeats and the listening connection) so that failing it closes exactly these connections.
 */
const session = (options: ListenOptions, resumed: boolean): Stream.Stream<QueueSignal, StorageUnavailable> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    yield* Effect.withClockScoped(realClock)
    const client = yield* PgClient.make({
      url: Redacted.make(options.url),
      transformJson: false,
      maxConnections: 1,
      connectTimeout: options.connectTimeout,
      applicationName: "dealstream-listen"
    }).pipe(Effect.provide(Reactivity.layer), Effect.mapError(unavailable))
    const listener = crypto.randomUUID()
    const heard = yield* Queue.unbounded<number>()
    const interval = Duration.decode(options.heartbeat)

    const signals = client.listen(CHANNEL).pipe(
      Stream.mapError(unavailable),
      Stream.mapEffect((payload): Effect.Effect<Option.Option<QueueSignal>> => {
        const message = decode(payload)
        // A payload this version does not know (a newer host's signal) is not for it.
        if (Option.isNone(message)) return Effect.succeedNone
        if (message.value._tag !== "Heartbeat") return Effect.succeedSome(message.value)
        return message.value.listener === listener ? Effect.as(Queue.offer(heard, message.value.beat), Option.none()) : Effect.succeedNone
      }),
      Stream.filterMap(identity)
    )

    let sent = 0
    const roundTrip = (within: Duration.Duration) =>
      Effect.suspend(() => {
        const beat = ++sent
        return client`SELECT pg_notify(${CHANNEL}, ${encode({ _tag: "Heartbeat", listener, beat })})`.pipe(
          Effect.mapError(unavailable),
          Effect.zipRight(Effect.repeat(Queue.take(heard), { until: (n) => n >= beat })),
          Effect.timeoutFail({
            duration: within,
            onTimeout: () =>
              new StorageUnavailable({
                message: `PostgreSQL is unavailable: the LISTEN connection heard nothing for ${Duration.format(within)}`
              })
          })
        )
      })
    // LISTEN runs as the merged stream starts: until it is in place, heartbeats go unheard.
    const firstContact = Duration.max(interval, Duration.decode(options.connectTimeout))
    const listening = Effect.retry(roundTrip(Duration.millis(250)), {
      times: Math.ceil(Duration.toMillis(firstContact) / 250)
    })
    const watchdog = Stream.fromEffect(listening).pipe(
      // Signals sent while reconnecting were lost; a Scheduled stands for any of them that was new
      // work. A WebhookDeleted lost then is made up for by the worker, which looks up the webhooks
      // of its attempts in flight once per poll interval.
      Stream.flatMap(() => resumed ? Stream.succeed<QueueSignal>({ _tag: "Scheduled" }) : Stream.empty),
      Stream.concat(Stream.drain(Stream.fromEffect(Effect.forever(Effect.zipRight(Effect.sleep(interval), roundTrip(interval))))))
    )
    return Stream.merge(signals, watchdog)
  })).pipe(
    // Closing a dead LISTEN connection makes the library's UNLISTEN finaliser die; the failure
    // that closed it is the news.
    Stream.catchAllCause((cause) => Option.match(Cause.failureOption(cause), { onNone: () => Stream.failCause(cause), onSome: Stream.fail }))
  )

/**
 * The signals of every host while the stream is consumed. A lost connection is re-established
 * (backing off from 200 ms); after about 6 s of failed attempts in a row the stream fails with
 * StorageUnavailable. The schedule starts over with the first signal of a new connection.
 */
export const listenSignals = (options: ListenOptions): Stream.Stream<QueueSignal, StorageUnavailable> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    yield* Effect.withClockScoped(realClock)
    let sessions = 0
    return Stream.suspend(() => session(options, sessions++ > 0)).pipe(
      Stream.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.intersect(Schedule.recurs(5))))
    )
  }))
