import { StorageUnavailable } from "@dealstream/core"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import { Cause, Clock, Duration, Effect, Option, Queue, Redacted, Result, Schedule, Schema, Stream } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { reasonOf } from "./errors.js"
import { noAnswer } from "./pool.js"

/** The server a listener connects to, and what to do when that connection fails. */
export interface ListenTarget {
  readonly url: string
  /** Told why the connection failed (primary.ts looks for the primary again when it is gone). */
  readonly failed: (error: SqlError) => Effect.Effect<void>
}

export interface ListenOptions {
  /**
   * The database's URL, or (several hosts) the server to listen on, asked again for each
   * connection: a listener follows the primary (primary.ts), and hears nothing from a standby.
   */
  readonly url: string | ((connectTimeout: Duration.Duration) => Effect.Effect<ListenTarget, SqlError>)
  readonly connectTimeout: Duration.Input
  /** How often the listener checks that its connection still hears the channel. */
  readonly heartbeat: Duration.Input
}

/** A NOTIFY channel as one kind of listener reads it. */
export interface Channel<A> {
  readonly name: string
  /** The listening connection's name in pg_stat_activity, one per channel. */
  readonly applicationName: string
  /**
   * The message of a payload, or null for one that is not for this listener (a newer host's
   * message, another listener's heartbeat).
   */
  readonly decode: (payload: string) => A | null
  /** Said as soon as LISTEN is in place again after a lost connection: whatever was sent meanwhile is lost. */
  readonly resumed: A
}

// A listener's own round trip through the server (see `session`), on the channel it listens to.
const Heartbeat = Schema.fromJsonString(Schema.TaggedStruct("Heartbeat", { listener: Schema.String, beat: Schema.Number }))
const encodeHeartbeat = Schema.encodeSync(Heartbeat)
const decodeHeartbeat = Schema.decodeUnknownOption(Heartbeat)

const fixedTarget = (url: string): ListenTarget => ({ url, failed: () => Effect.void })

const unavailable = (error: SqlError) => new StorageUnavailable({ message: `PostgreSQL is unavailable: ${reasonOf(error)}` })

// Heartbeats, timeouts and reconnect delays are about the wire, so they run on real time even when
// the consumer runs on a TestClock.
const realClock = Clock.Clock.defaultValue()

/**
 * One connection's worth of messages, on a connection of the session's own that both listens and
 * carries the heartbeats. `listen` returns once PostgreSQL has confirmed LISTEN, and a connection
 * that fails (closed, reset, its backend terminated) fails the notification queue. One that goes
 * silent instead (a peer gone without a word, a frozen server) is caught by the heartbeat: every
 * `heartbeat` the listener sends itself a Heartbeat on its channel through that very connection
 * and fails with StorageUnavailable when it does not hear it back in time. The heartbeat left
 * unanswered is interrupted, and the driver closes a connection whose interrupted statement does
 * not drain within 5 seconds; so a silent connection is dead before the session closes, and the
 * UNLISTEN of `listen`'s finaliser is skipped rather than waited for (on two connections, the
 * LISTEN one would wait for its UNLISTEN answer forever).
 */
const session = <A>(options: ListenOptions, channel: Channel<A>, resumed: boolean): Stream.Stream<A, StorageUnavailable> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const connectTimeout = Duration.fromInputUnsafe(options.connectTimeout)
      const target =
        typeof options.url === "string" ? fixedTarget(options.url) : yield* options.url(connectTimeout).pipe(Effect.mapError(unavailable))
      const lost = (error: SqlError) => Effect.andThen(target.failed(error), Effect.fail(unavailable(error)))
      const connection = yield* PgConnection.make({
        url: Redacted.make(target.url),
        connectTimeout,
        applicationName: channel.applicationName
      }).pipe(Effect.catch(lost))
      // Pinned: the heartbeats run beside the listener on the same session.
      const pinned = yield* connection.pin
      const notifications = yield* pinned.listen(channel.name).pipe(Effect.catch(lost))
      const listener = crypto.randomUUID()
      const heard = yield* Queue.unbounded<number>()
      const interval = Duration.fromInputUnsafe(options.heartbeat)

      const messages = Stream.fromQueue(notifications).pipe(
        Stream.catch((error) => Stream.fromEffect(lost(error))),
        Stream.mapEffect((notification): Effect.Effect<A | null> => {
          const heartbeat = decodeHeartbeat(notification.payload)
          if (Option.isNone(heartbeat)) return Effect.succeed(channel.decode(notification.payload))
          return heartbeat.value.listener === listener ? Effect.as(Queue.offer(heard, heartbeat.value.beat), null) : Effect.succeed(null)
        }),
        Stream.filter((message): message is A => message !== null)
      )

      let sent = 0
      const roundTrip = Effect.suspend(() => {
        const beat = ++sent
        return pinned.query("SELECT pg_notify($1, $2)", [channel.name, encodeHeartbeat({ _tag: "Heartbeat", listener, beat })]).pipe(
          Effect.catch(lost),
          Effect.andThen(Effect.repeat(Queue.take(heard), { until: (n) => n >= beat })),
          Effect.timeoutOrElse({
            duration: interval,
            orElse: () =>
              Effect.andThen(
                target.failed(noAnswer(interval)),
                Effect.fail(
                  new StorageUnavailable({
                    message: `PostgreSQL is unavailable: the LISTEN connection heard nothing for ${Duration.format(interval)}`
                  })
                )
              )
          })
        )
      })
      // LISTEN is in place: what was sent while reconnecting was lost, which `resumed` stands for.
      const watchdog = (resumed ? Stream.succeed(channel.resumed) : Stream.empty).pipe(
        Stream.concat(Stream.drain(Stream.fromEffect(Effect.forever(Effect.andThen(Effect.sleep(interval), roundTrip)))))
      )
      return Stream.merge(messages, watchdog)
    })
  ).pipe(
    // Should closing a dead connection's resources also die, the failure that closed it is still
    // the news: keep only the failure, so that the retry of `listenChannel` applies (Stream.retry
    // does not retry a cause that holds a defect).
    Stream.catchCause((cause) => Result.match(Cause.findError(cause), { onSuccess: Stream.fail, onFailure: Stream.failCause }))
  )

/**
 * The messages every host sends on a channel while the stream is consumed. A lost connection is
 * re-established (backing off from 200 ms), and `resumed` said once it listens again; after about
 * 6 s of failed attempts in a row the stream fails with StorageUnavailable. The schedule starts
 * over with the first message of a new connection.
 */
export const listenChannel = <A>(options: ListenOptions, channel: Channel<A>): Stream.Stream<A, StorageUnavailable> =>
  Stream.suspend(() => {
    let sessions = 0
    return Stream.suspend(() => session(options, channel, sessions++ > 0)).pipe(
      Stream.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.upTo({ times: 5 }))),
      Stream.provideService(Clock.Clock, realClock)
    )
  })
