import { Engine, type FeedPage, type ListParams, type RequestContext, ValidationError } from "@dealstream/core"
import { EmbeddedPostgres } from "@dealstream/storage-pg"
import { Cause, Effect, Exit, Fiber } from "effect"
import { engineOn } from "../host/HostLive.js"
import { embeddedClusterDir, type StorageChoice } from "../host/storage.js"

/** A tail that could not go on, worded for one line; `code` 2 for a bad option, 1 otherwise. */
export class TailFailed extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2
  ) {
    super(message)
  }
}

export interface TailOptions {
  readonly workspaceId: string
  /** As GET /v1/events takes them: `contact.*,deal.stage_changed`. */
  readonly types: string | undefined
  /** Start after this cursor instead of before the oldest event. */
  readonly fromCursor: string | undefined
  /** Each non-empty page's next_cursor as a JSON line on stderr, to resume from. */
  readonly printCursor: boolean
}

export interface Tail {
  /** Ends the tail after the page being printed; `done` then resolves. */
  readonly stop: () => void
  /** Resolves once stopped (by `stop` or a reader that closed stdout); rejects with TailFailed. */
  readonly done: Promise<void>
}

/** The longest page and the longest wait the feed allows: as few reads as possible. */
const PAGE = { limit: "1000", wait: "30" } as const

/** The engine's parameters, named as the operator gave them. */
const FLAGS: Readonly<Record<string, string>> = { after: "--from-cursor", types: "--types" }

/**
 * A tail follows a host: holding the embedded cluster itself would keep the host from starting,
 * so it only uses the server of one that runs.
 */
const followed = (choice: StorageChoice): StorageChoice => {
  if (choice === "memory" || !("embedded" in choice)) return choice
  const cluster = embeddedClusterDir(choice.embedded)
  const running = EmbeddedPostgres.runningUrl(cluster)
  if (running === null) {
    throw new TailFailed(
      `events tail follows a running host's embedded database, and none runs on ${cluster}: start dealstream serve first`,
      1
    )
  }
  return { postgres: running }
}

const paramsAfter = (options: TailOptions, after: string | undefined): ListParams => ({
  ...PAGE,
  ...(after === undefined ? {} : { after }),
  ...(options.types === undefined ? {} : { types: options.types })
})

/** Resumes once stdout has taken what it was given, so that a slow reader slows the tail instead of filling memory. */
const drained = Effect.callback<void>((resume) => {
  const done = () => resume(Effect.void)
  process.stdout.once("drain", done)
  return Effect.sync(() => process.stdout.off("drain", done))
})

/**
 * A page's lines and its cursor are handed over in one go: a stop comes between pages, never
 * inside a line.
 */
const show = (page: FeedPage, options: TailOptions) =>
  Effect.suspend(() => {
    if (page.data.length === 0) return Effect.void
    const taken = process.stdout.write(page.data.map((event) => `${JSON.stringify(event)}\n`).join(""))
    if (options.printCursor) process.stderr.write(`${JSON.stringify({ next_cursor: page.next_cursor })}\n`)
    return taken ? Effect.void : drained
  })

const follow = (options: TailOptions) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const ctx: RequestContext = { workspaceId: options.workspaceId, requestId: null, actor: null }
    let after = options.fromCursor
    for (;;) {
      const page = yield* engine.events.list(ctx, paramsAfter(options, after))
      yield* show(page, options)
      after = page.next_cursor
    }
  })

/** Only the first page can be refused (the cursors after it are the engine's own): the operator's options are to blame. */
const failure = (cause: Cause.Cause<unknown>): TailFailed => {
  const error = cause.reasons.find(Cause.isFailReason)?.error ?? cause.reasons.find(Cause.isDieReason)?.defect
  if (error instanceof TailFailed) return error
  if (error instanceof ValidationError) {
    const detail = error.details[0]
    return new TailFailed(detail === undefined ? error.message : `${FLAGS[detail.path] ?? detail.path} ${detail.message}`, 2)
  }
  const message = error instanceof Error ? error.message : String(error)
  return new TailFailed(message.split("\n")[0]!.trim(), 1)
}

/**
 * `dealstream events tail`: the workspace's feed as JSON lines on stdout, each exactly what a
 * webhook delivery of the event POSTs, from the oldest event (or after a cursor) on, following it
 * until stopped. A reader that goes away (`| head`) stops it as quietly as a signal.
 */
export const tail = (choice: StorageChoice, options: TailOptions): Tail => {
  const program = Effect.suspend(() => follow(options).pipe(Effect.provide(engineOn(followed(choice)))))
  const fiber = Effect.runFork(program)
  const stop = () => void Effect.runFork(Fiber.interrupt(fiber))
  let unwritable: Error | null = null
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") unwritable ??= error
    stop()
  })
  const done = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    if (unwritable !== null) throw new TailFailed(`cannot write to stdout: ${unwritable.message}`, 1)
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) throw failure(exit.cause)
  })
  return { stop, done }
}
