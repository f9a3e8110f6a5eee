import type { EngineService, JsonObject, RequestContext } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ctxOf, engineOver, servicesOf } from "../support/engine.js"
import { collectFeed, type FeedRead } from "../support/feedPolling.js"
import { testDatabase } from "../support/pg.js"
import { type Cli, lines, run } from "./cli.js"

/** A bound for anything the tail is waited for, never a time the test sleeps. */
const PATIENCE_MS = 30_000

/** Resolves with `ready()`'s first answer, checked whenever the process writes; fails when it exits first or after PATIENCE_MS. */
const when = <A>(cli: Cli, what: string, ready: () => A | undefined): Promise<A> =>
  new Promise((done, failed) => {
    const stop = () => {
      clearTimeout(timer)
      cli.child.stdout!.off("data", check)
      cli.child.stderr!.off("data", check)
      cli.child.off("exit", exited)
    }
    // Listeners added after run()'s own: its captured output already holds the chunk.
    const check = () => {
      const answer = ready()
      if (answer === undefined) return
      stop()
      done(answer)
    }
    const give = (why: string) => {
      stop()
      failed(new Error(`${why} waiting for ${what}\nstdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`))
    }
    const exited = () => give(`exited (${cli.child.exitCode})`)
    const timer = setTimeout(() => give(`timed out after ${PATIENCE_MS} ms`), PATIENCE_MS)
    cli.child.stdout!.on("data", check)
    cli.child.stderr!.on("data", check)
    cli.child.on("exit", exited)
    check()
  })

/** The finished lines of some output (a line still being written is not one). */
const finished = (text: string) => text.split("\n").slice(0, -1)

/** Once stdout has `count` finished lines: all of them. */
const stdoutLines = (cli: Cli, count: number) =>
  when(cli, `${count} lines on stdout`, () => {
    const out = finished(cli.stdout())
    return out.length >= count ? out : undefined
  })

// `dealstream events tail` as a child process of the built CLI against a PostgreSQL database,
// while an engine of the test writes to the same database (as a host would).
//
// Each test has a workspace of its own, written by nothing else: its feed is exactly what the test
// wrote. And since the feed holds an event back while an older transaction runs (other tests' on
// this server too), what a write added is read until it has come, never from one read right
// after the write.
describe("dealstream events tail on PostgreSQL", () => {
  const scope = Effect.runSync(Scope.make())
  let url = ""
  let storage: ReadonlyArray<string> = []
  let engine: EngineService
  let workspaces = 0

  const go = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)
  /**
   * A workspace of the calling test's own, with two contacts, a deal moved on and a contact update
   * (and a contact in a neighbouring workspace, which the tail must not print).
   */
  const seeded = async () => {
    const n = workspaces++
    const ws = ctxOf(`tail_ws_${n}`)
    const other = ctxOf(`tail_other_${n}`)
    return await go(
      Effect.gen(function* () {
        const contactId = (yield* engine.contacts.create(ws, { email: "ada@tail.example" })).data["id"] as string
        yield* engine.contacts.create(ws, { email: "bob@tail.example" })
        yield* engine.contacts.create(other, { email: "eve@other.example" })
        const sales = (yield* engine.pipelines.list(ws)).data[0]!
        const stages = (sales["stages"] as ReadonlyArray<JsonObject>).map((stage) => stage["id"] as string)
        const dealId = (yield* engine.deals.create(ws, { name: "Tail deal", pipeline_id: sales["id"], contact_ids: [contactId] })).data[
          "id"
        ] as string
        yield* engine.deals.moveStage(ws, dealId, { stage_id: stages[1] }, null)
        yield* engine.contacts.update(ws, contactId, { first_name: "Ada" }, null)
        return { ws, other, contactId, dealId, stages }
      })
    )
  }
  /**
   * The workspace's feed as the engine gives it, as lines the tail must print: `count` events (after
   * `after`, of `types`), read until they have come.
   */
  const feed = async (
    ws: RequestContext,
    count: number,
    params: { readonly after?: string; readonly types?: string; readonly limit?: number } = {}
  ) => {
    const read: FeedRead<JsonObject> = (query) => go(engine.events.list(ws, query))
    const { cursor, events } = await collectFeed(read, params.after ?? null, count, {
      limit: params.limit ?? 1000,
      ...(params.types === undefined ? {} : { types: params.types })
    })
    return { lines: events.map((event) => JSON.stringify(event)), next_cursor: cursor, data: events }
  }
  const tail = (...args: ReadonlyArray<string>) => run(["events", "tail", ...args, ...storage])
  const stopped = async (cli: Cli, signal: NodeJS.Signals) => {
    cli.child.kill(signal)
    expect(await cli.exit, cli.stderr()).toBe(0)
    // Whole lines only.
    expect(cli.stdout() === "" || cli.stdout().endsWith("\n")).toBe(true)
  }

  beforeAll(async () => {
    url = await Effect.runPromise(Scope.provide(testDatabase, scope))
    storage = ["--storage", "postgres", "--database-url", url]
    engine = await Effect.runPromise(
      Scope.provide(
        Effect.flatMap(Layer.build(PgStorage.layer(url)), (context) => engineOver(servicesOf(context))),
        scope
      )
    )
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  it("prints the workspace's events in feed order, follows new ones, and exits 0 on SIGTERM", async () => {
    const { contactId, ws } = await seeded()
    const before = await feed(ws, 5)
    expect(before.data.map((event) => event["type"])).toEqual([
      "contact.created",
      "contact.created",
      "deal.created",
      "deal.stage_changed",
      "contact.updated"
    ])
    const cli = tail("--workspace", ws.workspaceId, "--print-cursor")
    expect(await stdoutLines(cli, before.lines.length)).toEqual(before.lines)
    // The cursor of that page, which resumes where it ended.
    const cursorLine = JSON.stringify({ next_cursor: before.next_cursor })
    await when(cli, "the page's cursor on stderr", () => cli.stderr().includes(`${cursorLine}\n`) || undefined)

    await go(engine.contacts.update(ws, contactId, { title: "Engineer" }, null))
    const added = await feed(ws, 1, { after: before.next_cursor })
    expect(added.data.map((event) => event["type"])).toEqual(["contact.updated"])
    expect(await stdoutLines(cli, before.lines.length + 1)).toEqual([...before.lines, ...added.lines])
    await when(
      cli,
      "the next cursor on stderr",
      () => cli.stderr().includes(JSON.stringify({ next_cursor: added.next_cursor })) || undefined
    )

    await stopped(cli, "SIGTERM")
    expect(lines(cli.stdout())).toEqual([...before.lines, ...added.lines])
    // Nothing on stderr but the cursors asked for.
    expect(lines(cli.stderr())).toEqual([cursorLine, JSON.stringify({ next_cursor: added.next_cursor })])
  }, 60_000)

  it("--types deal.* prints only deal events, old and new; SIGINT exits 0", async () => {
    const { contactId, dealId, stages, ws } = await seeded()
    const deals = await feed(ws, 2, { types: "deal.*" })
    expect(deals.data.map((event) => event["type"])).toEqual(["deal.created", "deal.stage_changed"])
    const cli = tail("--workspace", ws.workspaceId, "--types", "deal.*")
    expect(await stdoutLines(cli, deals.lines.length)).toEqual(deals.lines)

    // The contact event comes first: a tail that printed it would print it before the deal's.
    await go(engine.contacts.update(ws, contactId, { title: "Chief engineer" }, null))
    await go(engine.deals.moveStage(ws, dealId, { stage_id: stages[2] }, null))
    const added = await feed(ws, 1, { types: "deal.*", after: deals.next_cursor })
    expect(added.data.map((event) => event["type"])).toEqual(["deal.stage_changed"])
    expect(await stdoutLines(cli, deals.lines.length + 1)).toEqual([...deals.lines, ...added.lines])

    await stopped(cli, "SIGINT")
    expect(lines(cli.stdout())).toEqual([...deals.lines, ...added.lines])
    expect(cli.stderr()).toBe("")
  }, 60_000)

  it("--from-cursor starts after the cursor", async () => {
    const { ws } = await seeded()
    const first = await feed(ws, 2, { limit: 2 })
    const rest = await feed(ws, 3, { after: first.next_cursor })
    expect(rest.lines.length).toBeGreaterThan(0)
    const cli = tail("--workspace", ws.workspaceId, `--from-cursor=${first.next_cursor}`)
    expect(await stdoutLines(cli, rest.lines.length)).toEqual(rest.lines)
    await stopped(cli, "SIGTERM")
    expect(lines(cli.stdout())).toEqual(rest.lines)
  }, 60_000)

  it("a reader that closes stdout (| head) ends the tail quietly with 0", async () => {
    const { contactId, ws } = await seeded()
    const before = await feed(ws, 5)
    const cli = tail("--workspace", ws.workspaceId)
    await stdoutLines(cli, before.lines.length)
    cli.child.stdout!.destroy()
    // The next write finds the pipe closed.
    await go(engine.contacts.update(ws, contactId, { title: "Reader gone" }, null))
    expect(await cli.exit, cli.stderr()).toBe(0)
    expect(cli.stderr()).toBe("")
  }, 60_000)

  it("a bad --types or --from-cursor exits 2 with the engine's message, and nothing on stdout", async () => {
    const { other, ws } = await seeded()
    const types = tail("--workspace", ws.workspaceId, "--types", "nope")
    expect(await types.exit).toBe(2)
    expect(lines(types.stderr())).toEqual(['dealstream: --types "nope" is not an event type of the feed, nor a prefix.* of one'])
    expect(types.stdout()).toBe("")

    const cursor = tail("--workspace", ws.workspaceId, "--from-cursor", "not-a-cursor")
    expect(await cursor.exit).toBe(2)
    expect(lines(cursor.stderr())).toEqual(["dealstream: --from-cursor is not a valid feed cursor"])
    expect(cursor.stdout()).toBe("")

    const foreign = tail("--workspace", other.workspaceId, "--from-cursor", (await feed(ws, 5)).next_cursor)
    expect(await foreign.exit).toBe(2)
    expect(lines(foreign.stderr())).toEqual(["dealstream: --from-cursor is a cursor of another workspace's feed"])
  }, 60_000)

  it("refuses to run without a workspace, on memory storage, or with options it does not take", async () => {
    const missing = run(["events", "tail", ...storage])
    expect(await missing.exit).toBe(2)
    expect(lines(missing.stderr())).toEqual(["dealstream: events tail needs --workspace <id>"])

    const memory = run(["events", "tail", "--workspace", "ws", "--storage", "memory"])
    expect(await memory.exit).toBe(1)
    expect(lines(memory.stderr())).toEqual(["dealstream: events tail needs a database: memory storage keeps nothing between runs"])

    const port = run(["events", "tail", "--workspace", "ws", "--port", "3000"])
    expect(await port.exit).toBe(2)
    expect(lines(port.stderr())[0]).toBe("dealstream: unknown option --port")

    const action = run(["events", "list"])
    expect(await action.exit).toBe(2)
    expect(lines(action.stderr())[0]).toBe('dealstream: unknown events command "list": tail')
  })

  it("exits 1 with one line when the database cannot be reached, or no host runs the embedded one", async () => {
    const probe = createServer()
    await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done))
    const port = (probe.address() as { port: number }).port
    await new Promise((done) => probe.close(done))
    const refused = run([
      "events",
      "tail",
      "--workspace",
      "ws",
      "--storage",
      "postgres",
      "--database-url",
      `postgres://app:s3cret@127.0.0.1:${port}/test`
    ])
    expect(await refused.exit).toBe(1)
    expect(lines(refused.stderr())).toEqual([`dealstream: cannot connect to PostgreSQL at 127.0.0.1:${port}/test: connection refused`])

    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-tail-"))
    try {
      const embedded = run(["events", "tail", "--workspace", "ws", "--data-dir", dataDir])
      expect(await embedded.exit).toBe(1)
      expect(lines(embedded.stderr())).toEqual([
        `dealstream: events tail follows a running host's embedded database, and none runs on ${join(dataDir, "pg")}: start dealstream serve first`
      ])
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
