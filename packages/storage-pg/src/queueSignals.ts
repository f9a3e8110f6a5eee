import { type QueueSignal, StorageUnavailable } from "@dealstream/core"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import { Cause, Clock, Duration, Effect, Queue, Redacted, Result, Schedule, Schema, Stream } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { reasonOf } from "./errors.js"

/** The one channel every host of a database listens on. */
export const CHANNEL = "dealstream_queue"

const Message = Schema.fromJsonString(Schema.Union([
  Schema.TaggedStruct("Scheduled", {}),
  Schema.TaggedStruct("WebhookDeleted", { webhookId: Schema.String }),
  // A listener's own round trip through the server: see `session`.
  Schema.TaggedStruct("Heartbeat", { listener: Schema.String, beat: Schema.Number })
]))
const encode = Schema.encodeSync(Message)
const decode = Schema.decodeUnknownOption(Message)

/** NOTIFY through the pool, as `pg_notify` (a bind parameter cannot stand for NOTIFY's payload). */
export const sendSignal = (sql: SqlClient) => (signal: QueueSignal): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql`SELECT pg_notify(${CHANNEL}, ${encode(signal)})`)

export interface ListenOptions {
  readonly url: string
  readonly connectTimeout: Duration.Input
  /** How often the listener checks that its connection still hears the channel. */
  readonly heartbeat: Duration.Input
}

const unavailable = (error: SqlError) => new StorageUnavailable({ message: `PostgreSQL is unavailable: ${reasonOf(error)}` })

// Heartbeats, timeouts and reconnect delays are about the wire, so they run on real time even when
// the consumer runs on a TestClock.
const realClock = Clock.Clock.defaultValue()

/**
 * One connection's worth of signals, on a connection of the session's own that both listens and
 * carries the heartbeats. `listen` returns once PostgreSQL has confirmed LISTEN, and a connection
 * that fails (closed, reset, its backend terminated) fails the notification queue. One that goes
 * silent instead (a peer gone without a word, a frozen server) is caught by the heartbeat: every
 * `heartbeat` the listener sends itself a Heartbeat on the shared channel through that very
 * connection and fails with StorageUnavailable when it does not hear it back in time. The
 * heartbeat left unanswered is interrupted, and the driver closes a connection whose interrupted
 * statement does not drain within 5 seconds; so a silent connection is dead before the session
 * closes, and the UNLISTEN of `listen`'s finaliser is skipped rather than waited for (on two
 * connections, the LISTEN one would wait for its UNLISTEN answer forever).
 */
const session = (options: ListenOptions, resumed: boolean): Stream.Stream<QueueSignal, StorageUnavailable> =>
  Stream.unwrap(Effect.gen(function*() {
    const connection = yield* PgConnection.make({
      url: Redacted.make(options.url),
      connectTimeout: options.connectTimeout,
      applicationName: "dealstream-listen"
    }).pipe(Effect.mapError(unavailable))
    // Pinned: the heartbeats run beside the listener on the same session.
    const pinned = yield* connection.pin
    const notifications = yield* pinned.listen(CHANNEL).pipe(Effect.mapError(unavailable))
    const listener = crypto.randomUUID()
    const heard = yield* Queue.unbounded<number>()
    const interval = Duration.fromInputUnsafe(options.heartbeat)

    const signals = Stream.fromQueue(notifications).pipe(
      Stream.mapError(unavailable),
      Stream.mapEffect((notification): Effect.Effect<QueueSignal | null> => {
        const message = decode(notification.payload)
        // A payload this version does not know (a newer host's signal) is not for it.
        if (message._tag === "None") return Effect.succeed(null)
        if (message.value._tag !== "Heartbeat") return Effect.succeed(message.value)
        return message.value.listener === listener ? Effect.as(Queue.offer(heard, message.value.beat), null) : Effect.succeed(null)
      }),
      Stream.filter((signal): signal is QueueSignal => signal !== null)
    )

    let sent = 0
    const roundTrip = Effect.suspend(() => {
      const beat = ++sent
      return pinned.query("SELECT pg_notify($1, $2)", [CHANNEL, encode({ _tag: "Heartbeat", listener, beat })]).pipe(
        Effect.mapError(unavailable),
        Effect.andThen(Effect.repeat(Queue.take(heard), { until: (n) => n >= beat })),
        Effect.timeoutOrElse({
          duration: interval,
          orElse: () =>
            Effect.fail(
              new StorageUnavailable({
                message: `PostgreSQL is unavailable: the LISTEN connection heard nothing for ${Duration.format(interval)}`
              })
            )
        })
      )
    })
    // LISTEN is in place: signals sent while reconnecting were lost, and a Scheduled stands for any
    // of them that was new work. A WebhookDeleted lost then is made up for by the worker, which
    // looks up the webhooks of its attempts in flight once per poll interval.
    const watchdog = (resumed ? Stream.succeed<QueueSignal>({ _tag: "Scheduled" }) : Stream.empty).pipe(
      Stream.concat(Stream.drain(Stream.fromEffect(Effect.forever(Effect.andThen(Effect.sleep(interval), roundTrip)))))
    )
    return Stream.merge(signals, watchdog)
  })).pipe(
    // Should closing a dead connection's resources also die, the failure that closed it is still
    // the news: keep only the failure, so that the retry of `listenSignals` applies (Stream.retry
    // does not retry a cause that holds a defect).
    Stream.catchCause((cause) => Result.match(Cause.findError(cause), { onSuccess: Stream.fail, onFailure: Stream.failCause }))
  )

/**
 * The signals of every host while the stream is consumed. A lost connection is re-established
 * (backing off from 200 ms); after about 6 s of failed attempts in a row the stream fails with
 * StorageUnavailable. The schedule starts over with the first signal of a new connection.
 */
export const listenSignals = (options: ListenOptions): Stream.Stream<QueueSignal, StorageUnavailable> =>
  Stream.suspend(() => {
    let sessions = 0
    return Stream.suspend(() => session(options, sessions++ > 0)).pipe(
      Stream.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.upTo({ times: 5 }))),
      Stream.provideService(Clock.Clock, realClock)
    )
  })
