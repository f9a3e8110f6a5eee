import { apiKeyIdOf, type EngineService, type RequestContext, type StorageService, SYSTEM_WORKSPACE } from "@dealstream/core"
import { createHash } from "node:crypto"
import { fresh } from "../../packages/core/src/testing/storageFixtures.js"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { shardOf } from "../../packages/storage-pg/src/functions/workspaceRows.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { KEPT_PLAN_COLUMN } from "../../packages/storage-pg/src/functions/keptPlan.js"
import { NOTIFY } from "../../packages/storage-pg/src/citusSignals.js"
import { routingOf, type Routing } from "../support/citusRouting.js"
import { engineOver } from "../support/engine.js"
import { type LoggedStatement, type StatementLog, startStatementLog } from "../support/statementLog.js"
import { openWireExplain, type WireExplain } from "../support/wireExplain.js"

// Issue 31: every statement a request makes goes to one worker. The engine runs each request on a
// PgStorage whose connections (to the coordinator, and to the workers it sends commits and feed
// bounds to itself) pass through proxies that log every statement as sent (text,
// parameter types, binary values); each is then EXPLAINed on the coordinator with those very values,
// and Citus's plan must be one task (a router query, or a call Citus delegates by its workspace
// argument) on the request's workspace's worker, or touch no distributed table at all.
//
// Beside the plans, the database runs with citus.multi_task_query_log_level = 'error' from before
// the storage connects: a statement Citus runs on several shards fails, and the request with it.

/** What EXPLAIN cannot plan: transaction control, session settings, listening. */
const UNPLANNED = /^\s*(BEGIN|START|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|LISTEN|UNLISTEN|SET|RESET)\b/i

interface Routed {
  readonly statement: LoggedStatement
  readonly routing: Routing
  /** Where the host sent it: the coordinator, or a worker itself. */
  readonly sentTo: "coordinator" | "worker"
}

class Cluster extends Context.Service<
  Cluster,
  {
    readonly engine: EngineService
    /** The statements the storage sends while `effect` runs, with where Citus runs each. */
    readonly routed: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<{ readonly value: A; readonly routed: ReadonlyArray<Routed> }, E>
    /** The same for an effect that may fail. */
    readonly captured: <A, E>(
      effect: Effect.Effect<A, E>
    ) => Effect.Effect<{ readonly exit: Exit.Exit<A, E>; readonly routed: ReadonlyArray<Routed> }>
    readonly storage: StorageService
    readonly explainer: WireExplain
    /**
     * The tables a read sent through ds_read_in (readOnWorker.ts) scans on the worker without the
     * condition on its workspace: explained there, on the workspace's shards, with its own values.
     */
    readonly unscoped: (statement: LoggedStatement) => Promise<ReadonlyArray<string>>
    /** A connection opened as the storage's are, after the database's setting. */
    readonly session: WireExplain
  }
>()("test/Cluster") {}

const clusterLayer = Layer.effect(
  Cluster,
  Effect.gen(function* () {
    const url = yield* citusDatabase
    const explainer = yield* Effect.acquireRelease(
      Effect.promise(() => openWireExplain(url)),
      (explainer) => Effect.sync(() => explainer.close())
    )
    const database = new URL(url).pathname.slice(1)
    yield* Effect.promise(() => explainer.query(`ALTER DATABASE ${database} SET citus.multi_task_query_log_level = 'error'`))

    const log = yield* Effect.acquireRelease(
      Effect.promise(() => startStatementLog(Number(new URL(url).port))),
      (log) => Effect.promise(() => log.close())
    )
    const through = new URL(url)
    through.port = String(log.port)
    // The host sends a workspace's commits and feed bounds to its worker itself (citusWorkers.ts):
    // a log in front of each worker too, which the host reaches through.
    const [nodes] = yield* Effect.promise(() =>
      explainer.query("SELECT string_agg(nodename || ':' || nodeport, ',') FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary'")
    )
    const workerLogs: Array<StatementLog> = []
    const citusWorkerUrls: Record<string, string> = {}
    const workerExplainers = new Map<string, WireExplain>()
    for (const node of nodes!.split(",")) {
      const at = node.lastIndexOf(":")
      const direct = new URL(url)
      direct.hostname = node.slice(0, at)
      direct.port = node.slice(at + 1)
      workerExplainers.set(
        node,
        yield* Effect.acquireRelease(
          Effect.promise(() => openWireExplain(direct.toString())),
          (opened) => Effect.sync(() => opened.close())
        )
      )
      const workerLog = yield* Effect.acquireRelease(
        Effect.promise(() => startStatementLog(Number(node.slice(at + 1)), node.slice(0, at))),
        (started) => Effect.promise(() => started.close())
      )
      workerLogs.push(workerLog)
      const reached = new URL(url)
      reached.hostname = "127.0.0.1"
      reached.port = String(workerLog.port)
      citusWorkerUrls[node] = reached.toString()
    }
    const services = yield* PgStorage.makeWithQueue({ url: through.toString(), citusWorkerUrls }).pipe(Effect.orDie)
    const engine = yield* engineOver(services)
    const take = () => [
      ...log.take().map((statement) => ({ statement, sentTo: "coordinator" as const })),
      ...workerLogs.flatMap((logged) => logged.take().map((statement) => ({ statement, sentTo: "worker" as const })))
    ]
    // The tests of a file run one after another: a request's statements are those between two takes.
    const captured = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        take()
        const exit = yield* Effect.exit(effect)
        const statements = take().filter(({ statement }) => !UNPLANNED.test(statement.text))
        const routed: Array<Routed> = []
        for (const { sentTo, statement } of statements) {
          // A delegated function's call sent to the worker itself keeps its plan there by a second
          // column (keptPlan.ts), which Citus never delegates: explained without it, it shows where
          // Citus would have sent it, which must be where the host did.
          const kept = statement.text.endsWith(KEPT_PLAN_COLUMN)
          if (/^SELECT ds_[a-z_]+_in\(/.test(statement.text)) expect(kept).toBe(sentTo === "worker")
          const explained = kept ? { ...statement, text: statement.text.slice(0, -KEPT_PLAN_COLUMN.length) } : statement
          const routing = routingOf(yield* Effect.promise(() => explainer.explain(explained)))
          // A batch's signals go out after its commits are answered (citusSignals.ts), so they fall
          // in whichever request is running then: they belong to none, and touch no distributed table.
          if (statement.text === NOTIFY) expect(routing).toEqual({ _tag: "Coordinator" })
          else routed.push({ statement, sentTo, routing })
        }
        return { exit, routed }
      })
    const routed = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.flatMap(captured(effect), ({ exit, routed }) => Effect.map(exit, (value) => ({ value, routed })))
    const session = yield* Effect.acquireRelease(
      Effect.promise(() => openWireExplain(url)),
      (session) => Effect.sync(() => session.close())
    )
    const unscoped = async (statement: LoggedStatement) => {
      const read = workerReadOf(statement)
      if (read === null) throw new Error(`not a read through ds_read_in: ${statement.text.slice(0, 80)}`)
      const [node] = await explainer.query(
        `SELECT n.nodename || ':' || n.nodeport FROM pg_dist_placement AS p JOIN pg_dist_node AS n ON n.groupid = p.groupid
        WHERE p.shardid = get_shard_id_for_distribution_column('ds_events', ${literal(read.workspace)}) AND n.noderole = 'primary'`
      )
      let rendered = read.query
      // A table is named `{ds_contacts}`; a regular expression's `{4}` is not one.
      for (const table of new Set(Array.from(read.query.matchAll(/\{([a-z]\w*)\}/g), (match) => match[1]!))) {
        const [shard] = await explainer.query(`SELECT ${shardOf(`'${table}'`, literal(read.workspace))}`)
        rendered = rendered.replaceAll(`{${table}}`, shard!)
      }
      const plan = await workerExplainers.get(node!)!.explain({ ...read.params, text: rendered })
      return scansWithout(plan as Json, read.workspace)
    }
    return { engine, routed, captured, storage: services.storage, explainer, session, unscoped }
  })
)

/** The first 120 characters of each statement, with where it runs: what a failed expectation shows. */
const shown = (routed: ReadonlyArray<Routed>) =>
  routed.map(
    ({ routing, statement }) =>
      `${routing._tag === "MultiShard" ? `MultiShard (${routing.why})` : routing._tag}: ${statement.text.slice(0, 120)}`
  )

/** Every statement on one task, or on the coordinator alone. */
const expectRouted = (routed: ReadonlyArray<Routed>) => {
  expect(shown(routed).filter((line) => line.startsWith("MultiShard"))).toEqual([])
  expect(routed.length).toBeGreaterThan(0)
}

/** Every statement on one task, all of them on one worker, or on the coordinator alone; answers the worker. */
const expectOneWorker = (routed: ReadonlyArray<Routed>): string => {
  expectRouted(routed)
  const nodes = new Set(routed.flatMap(({ routing }) => (routing._tag === "OneTask" ? [routing.node] : [])))
  expect([...nodes]).toHaveLength(1)
  return [...nodes][0]!
}

const texts = (routed: ReadonlyArray<Routed>) => routed.map(({ statement }) => statement.text)

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/** A text parameter as bound: the same bytes in the text and the binary format. */
const textValue = (statement: LoggedStatement, index: number) => statement.values[index]?.toString("utf8") ?? ""

const TEXT_ARRAY = 1009

/**
 * A read the host sent through ds_read_in(workspace, query, names, params): its workspace, its
 * query as written (tables as `{ds_contacts}`, parameters as `$1[k]`) and its parameters as bound,
 * to be given to that query alone.
 */
const workerReadOf = (statement: LoggedStatement) => {
  if (!statement.text.startsWith("SELECT ds_read_in(")) return null
  const format = statement.formats.length === 1 ? statement.formats[0]! : (statement.formats[3] ?? 0)
  return {
    workspace: textValue(statement, 0),
    query: textValue(statement, 1),
    params: { parameterTypes: [TEXT_ARRAY], formats: [format], values: [statement.values[3] ?? null] }
  }
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * The relations a plan scans without a condition on the workspace (its index condition, filter or
 * recheck, or its bitmap index scan's): on a worker, a shard holds many workspaces' rows, and a scan
 * without it would read theirs. The plan is a custom one: the workspace appears as its value.
 */
const scansWithout = (plan: Json, workspace: string): ReadonlyArray<string> => {
  const condition = `workspace_id = ${literal(workspace)}::text`
  const conditions = (node: { readonly [key: string]: Json }): ReadonlyArray<string> => [
    ...["Index Cond", "Filter", "Recheck Cond"].flatMap((key) => (typeof node[key] === "string" ? [node[key] as string] : [])),
    ...(Array.isArray(node["Plans"]) ? node["Plans"] : [])
      .filter((child): child is { readonly [key: string]: Json } => typeof child === "object" && child !== null && !Array.isArray(child))
      .filter((child) => child["Node Type"] === "Bitmap Index Scan" || child["Node Type"] === "BitmapAnd")
      .flatMap(conditions)
  ]
  const walk = (value: Json): ReadonlyArray<string> => {
    if (Array.isArray(value)) return value.flatMap(walk)
    if (typeof value !== "object" || value === null) return []
    const node = value as { readonly [key: string]: Json }
    const relation = node["Relation Name"]
    const own = typeof relation === "string" && !conditions(node).some((text) => text.includes(condition)) ? [relation] : []
    return [...own, ...Object.values(node).flatMap(walk)]
  }
  return walk(plan)
}

/**
 * A key's first commit as the engine makes it (its created event, its document in the system
 * workspace by digest), its event recorded in `log`: the key's workspace, or the system workspace
 * for a key made before keys had workspaces (test/secrets/apiKeys.pg.spec.ts writes those the same way).
 */
const keyWritten = (workspaceId: string, digest: string, log: string) => {
  const id = apiKeyIdOf(digest)
  const at = "2026-01-01T00:00:00.000Z"
  return {
    streams: [
      {
        streamId: id,
        expectedVersion: 0,
        events: [
          {
            type: "api_key.created",
            data: { id, workspace_id: workspaceId, key_sha256: digest, at },
            metadata: { workspaceId: log, eventId: fresh("evt"), requestId: null, actor: "cli" }
          }
        ]
      }
    ],
    documents: [
      {
        _tag: "Upsert" as const,
        collection: "api_key" as const,
        workspaceId: SYSTEM_WORKSPACE,
        id: digest,
        version: 1,
        deletedAt: null,
        uniqueKey: null,
        searchWords: [],
        data: { id, workspace_id: workspaceId, created_at: at, revoked_at: null }
      }
    ]
  }
}

const sha256 = (key: string) => createHash("sha256").update(key, "utf8").digest("hex")

const contextOf = (workspaceId: string): RequestContext => ({ workspaceId, requestId: null, actor: "test" })

describe("on Citus every statement of a request goes to one worker", () => {
  it.layer(clusterLayer, { timeout: 120_000 })((it) => {
    it.effect("the commit of a create, with its idempotency claim and stored answer", () =>
      Effect.gen(function* () {
        const { engine, routed } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const key = fresh("idem")
        const { routed: statements } = yield* routed(
          Effect.gen(function* () {
            // As the host's IdempotentReplies runs a POST with an Idempotency-Key.
            expect(yield* engine.idempotency.get(ctx, key)).toBeNull()
            const created = yield* engine.contacts.create({ ...ctx, idempotency: { key, fingerprint: "f" } }, { email: "ada@example.com" })
            yield* engine.idempotency.put(ctx, key, {
              fingerprint: "f",
              status: 201,
              body: created.data,
              location: null,
              created_at: new Date().toISOString()
            })
          })
        )
        expectOneWorker(statements)
        // The claim's read, the write with its claim, the stored answer: the last two as delegated calls.
        expect(texts(statements).filter((text) => text.includes("ds_commit_batch_in("))).toHaveLength(2)
        expect(statements.filter(({ statement }) => statement.text.includes("ds_commit_batch_in(")).map(({ sentTo }) => sentTo)).toEqual([
          "worker",
          "worker"
        ])
        expect(texts(statements).some((text) => /FROM ds_idempotency_keys\b/.test(text))).toBe(true)
        const { routed: replay, value } = yield* routed(engine.idempotency.get(ctx, key))
        expect(value?.status).toBe(201)
        expectOneWorker(replay)
      })
    )

    it.effect("an update, a GET and the record's history", () =>
      Effect.gen(function* () {
        const { engine, routed } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const created = yield* engine.contacts.create(ctx, { email: "grace@example.com" })
        const id = String(created.data["id"])
        const update = yield* routed(engine.contacts.update(ctx, id, { first_name: "Grace" }, 1))
        const get = yield* routed(engine.contacts.get(ctx, id, null))
        const history = yield* routed(engine.contacts.history(ctx, id, {}))
        expect(get.value.data["first_name"]).toBe("Grace")
        expect(history.value.data).toHaveLength(2)
        const node = expectOneWorker(update.routed)
        expect(expectOneWorker(get.routed)).toBe(node)
        expect(expectOneWorker(history.routed)).toBe(node)
        expect(texts(update.routed).some((text) => text.includes("ds_commit_batch_in("))).toBe(true)
        expect(texts(history.routed).some((text) => /FROM ds_events\b/.test(text))).toBe(true)
        // The GET is read on the worker's shards by ds_read_in, sent to the worker by the host.
        expect(get.routed.map(({ statement, sentTo }) => [statement.text.slice(0, 17), sentTo])).toEqual([["SELECT ds_read_in", "worker"]])
      })
    )

    it.effect("a list page with a filter and a cursor, and a search, each read on the worker's shards", () =>
      Effect.gen(function* () {
        const { engine, routed, unscoped } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        for (const email of ["a1@example.com", "a2@example.com", "a3@example.com"]) {
          yield* engine.contacts.create(ctx, { email, first_name: "Ann" })
        }
        const filter = JSON.stringify({ first_name: "Ann" })
        const first = yield* routed(engine.contacts.list(ctx, { filter, limit: "2" }))
        const cursor = first.value.next_cursor
        expect(cursor).not.toBeNull()
        const next = yield* routed(engine.contacts.list(ctx, { filter, limit: "2", cursor: cursor! }))
        expect(next.value.data).toHaveLength(1)
        const search = yield* routed(engine.contacts.list(ctx, { search: "a2@exam", limit: "10" }))
        expect(search.value.data.map((contact) => contact["email"])).toEqual(["a2@example.com"])
        const node = expectOneWorker(first.routed)
        expect(expectOneWorker(next.routed)).toBe(node)
        expect(expectOneWorker(search.routed)).toBe(node)
        for (const request of [first, next, search]) {
          // Read on the worker's shards by ds_read_in, sent there by the host, each scan held to the workspace.
          expect(request.routed.map(({ statement, sentTo }) => [statement.text.slice(0, 17), sentTo])).toEqual([
            ["SELECT ds_read_in", "worker"]
          ])
          expect(yield* Effect.promise(() => unscoped(request.routed[0]!.statement))).toEqual([])
        }
        expect(workerReadOf(next.routed[0]!.statement)!.query).toMatch(/FROM \{ds_contacts\}/)
        expect(workerReadOf(search.routed[0]!.statement)!.query).toContain("{ds_contacts_words}")
      })
    )

    it.effect("the pipeline figures and duplicate groups, each read on the worker's shards", () =>
      Effect.gen(function* () {
        const { engine, routed, unscoped } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!
        const stages = pipeline["stages"] as ReadonlyArray<{ readonly id: string }>
        const deal = yield* engine.deals.create(ctx, { name: "Big", pipeline_id: pipeline["id"], value: 1000, currency: "EUR" })
        yield* engine.deals.moveStage(ctx, String(deal.data["id"]), { stage_id: stages[1]!.id }, null)
        yield* engine.contacts.create(ctx, { email: "twin@example.com", first_name: "Twin", phone: "+1 555 0100" })
        yield* engine.contacts.create(ctx, { email: "twin2@example.com", first_name: "Twin", phone: "+1 555 0100" })
        // it.effect runs on TestClock, at the epoch: the deal was made and moved on its first day.
        const [today, later] = ["1970-01-01", "1970-01-02"]
        const pipelineId = String(pipeline["id"])
        const requests = {
          summary: yield* routed(engine.pipelines.summary(ctx, pipelineId, {})),
          conversion: yield* routed(engine.pipelines.conversion(ctx, pipelineId, { from: today, to: later })),
          forecast: yield* routed(engine.deals.forecast(ctx, { from: today, to: later })),
          duplicates: yield* routed(engine.contacts.duplicates(ctx, {}))
        }
        expect((requests.summary.value["open"] as { readonly count: number }).count).toBe(1)
        const [lead] = requests.conversion.value["stages"] as ReadonlyArray<{ readonly entered: number; readonly advanced: number }>
        expect(lead).toMatchObject({ entered: 1, advanced: 1 })
        expect(requests.duplicates.value.data).toHaveLength(1)
        for (const [name, request] of Object.entries(requests)) {
          const reads = request.routed.filter(({ statement }) => statement.text.startsWith("SELECT ds_read_in("))
          expect([name, reads.length > 0, reads.every(({ sentTo }) => sentTo === "worker")]).toEqual([name, true, true])
          for (const read of reads) expect([name, yield* Effect.promise(() => unscoped(read.statement))]).toEqual([name, []])
          expectOneWorker(request.routed)
        }
      })
    )

    it.effect("the change feed: its bound from the worker, then the page, both sent to the worker", () =>
      Effect.gen(function* () {
        const { engine, routed } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        yield* engine.contacts.create(ctx, { email: "feed@example.com" })
        const feed = yield* routed(engine.events.list(ctx, { limit: "10" }))
        expect(feed.value.data.map((event) => event["type"])).toEqual(["contact.created"])
        expectOneWorker(feed.routed)
        expect(texts(feed.routed).some((text) => text.includes("ds_feed_bound_in("))).toBe(true)
        expect(texts(feed.routed).some((text) => /FROM ds_events\b/.test(text))).toBe(true)
        // Both sent to the worker by the host: the feed costs the coordinator nothing.
        expect(feed.routed.filter(({ sentTo }) => sentTo === "coordinator").map(({ statement }) => statement.text)).toEqual([])
      })
    )

    it.effect("more of a day's requests: companies, activities, expand, batch, as-of, trash, settings, events, duplicates, a merge", () =>
      Effect.gen(function* () {
        const { engine, routed } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const contact = String((yield* engine.contacts.create(ctx, { email: "day@example.com" })).data["id"])
        const before = new Date().toISOString()
        const requests = {
          company: yield* routed(engine.companies.create(ctx, { name: "Buyer Inc" })),
          activity: yield* routed(engine.activities.create(ctx, { type: "note", subject: "Met", contact_ids: [contact] })),
          expanded: yield* routed(engine.contacts.get(ctx, contact, "activities")),
          batch: yield* routed(
            engine.contacts.batch(ctx, {
              atomic: true,
              operations: [
                { op: "create", data: { email: "b1@example.com" } },
                { op: "update", id: contact, data: { first_name: "Day" } }
              ]
            })
          ),
          asOf: yield* routed(engine.contacts.getAsOf(ctx, contact, before)),
          deals: yield* routed(engine.deals.list(ctx, {})),
          activities: yield* routed(engine.activities.list(ctx, { contact_id: contact })),
          deleted: yield* routed(engine.contacts.delete(ctx, contact, null)),
          trash: yield* routed(engine.trash.list(ctx, { type: "contact" })),
          restored: yield* routed(engine.contacts.restore(ctx, contact)),
          feed: yield* routed(engine.events.list(ctx, { limit: "100" })),
          customFields: yield* routed(engine.customFields.list(ctx, null)),
          webhooks: yield* routed(engine.webhooks.list(ctx)),
          duplicates: yield* routed(engine.contacts.duplicates(ctx, {})),
          companyDuplicates: yield* routed(engine.companies.duplicates(ctx, {}))
        }
        const [first] = requests.feed.value.data
        const one = yield* routed(engine.events.get(ctx, String(first!["id"])))
        const after = yield* routed(engine.events.list(ctx, { after: String(requests.feed.value.next_cursor), types: "contact.*" }))
        expect(after.value.data).toEqual([])
        // A merge: its links read, its one commit, the links stored meanwhile read again.
        const other = String((yield* engine.contacts.create(ctx, { email: "other@example.com" })).data["id"])
        const merged = yield* routed(engine.contacts.merge(ctx, contact, { merge_ids: [other] }))
        expect(requests.batch.value.outcomes.map((outcome) => outcome._tag)).toEqual(["Applied", "Applied"])
        expect(requests.trash.value.data).toHaveLength(1)
        expect((requests.expanded.value.data["activities"] as ReadonlyArray<unknown>).length).toBe(1)
        const node = expectOneWorker(one.routed)
        for (const [name, request] of Object.entries({ ...requests, after, merged })) {
          expect([name, expectOneWorker(request.routed)]).toEqual([name, node])
        }
      })
    )

    // An API key's document is in the system workspace (authentication reads it there), its events
    // in the key's workspace's log, or for a key made before keys had workspaces, its first event in
    // the system workspace's: each statement goes to one worker, not always the same one.
    it.effect("API keys: authenticate, GET of a key and of an older key, the list, a taken id", () =>
      Effect.gen(function* () {
        const { engine, routed, storage } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const [key, older] = [sha256(fresh("dsk")), sha256(fresh("dsk"))]
        yield* storage.commit(keyWritten(ctx.workspaceId, key, ctx.workspaceId))
        yield* storage.commit(keyWritten(ctx.workspaceId, older, SYSTEM_WORKSPACE))
        const authenticated = yield* routed(engine.apiKeys.authenticate(key))
        expect(authenticated.value?.keyId).toBe(apiKeyIdOf(key))
        const get = yield* routed(engine.apiKeys.get(ctx, apiKeyIdOf(key)))
        const getOlder = yield* routed(engine.apiKeys.get(ctx, apiKeyIdOf(older)))
        expect([get.value.data["id"], getOlder.value.data["id"]]).toEqual([apiKeyIdOf(key), apiKeyIdOf(older)])
        const list = yield* routed(engine.apiKeys.listFor(ctx))
        expect(list.value.data).toHaveLength(2)
        const manager = { scopes: "*" as const, configured: true }
        const taken = yield* routed(
          Effect.flip(engine.apiKeys.createFor(contextOf(fresh("ws")), { name: "again", scopes: ["contacts:read"] }, older, manager))
        )
        expect(taken.value._tag).toBe("Conflict")
        for (const request of [authenticated, get, getOlder, list, taken]) expectRouted(request.routed)
        // The older key's stream is read in both logs, each a router query; the newer one's in its own alone.
        const streamReads = (request: typeof get) =>
          texts(request.routed).filter((text) => /FROM ds_events WHERE workspace_id = \$3/.test(text))
        expect([streamReads(get), streamReads(getOlder)].map((reads) => reads.length)).toEqual([1, 2])
        // Another workspace finds neither.
        for (const digest of [key, older]) {
          expect((yield* Effect.flip(engine.apiKeys.get(contextOf(fresh("ws")), apiKeyIdOf(digest))))._tag).toBe("NotFound")
        }
      })
    )

    // A commit that moves a settings stream (an API key's, a custom field's, a pipeline's; the
    // default pipeline a workspace's first pipeline list makes) reads and moves the settings
    // versions inside the delegated call, on the worker: one statement per workspace, each routed.
    // They once joined the reads to ds_settings_versions with no workspace Citus could prune by, and
    // failed under the setting: this is also the proof that the setting holds inside a delegated call.
    it.effect("a commit moving a settings stream runs only routed statements, on the worker too", () =>
      Effect.gen(function* () {
        const { captured, engine, storage } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const key = sha256(fresh("dsk"))
        yield* storage.commit(keyWritten(ctx.workspaceId, key, ctx.workspaceId))
        const manager = { scopes: "*" as const, configured: true }
        const requests: ReadonlyArray<{ readonly exit: Exit.Exit<unknown, unknown>; readonly routed: ReadonlyArray<Routed> }> = [
          yield* captured(engine.apiKeys.update(ctx, apiKeyIdOf(key), { name: "renamed" }, null, manager)),
          yield* captured(engine.customFields.create(ctx, { object: "contact", key: "tier", label: "Tier", type: "text" })),
          // A workspace's first read of its pipelines makes its default one: a settings commit too.
          yield* captured(engine.pipelines.list(ctx))
        ]
        for (const { exit, routed } of requests) {
          expectRouted(routed)
          expect(texts(routed).some((text) => text.includes("ds_commit_batch_in("))).toBe(true)
          expect(Exit.isSuccess(exit), String(Exit.isFailure(exit) ? exit.cause : "")).toBe(true)
        }
      })
    )

    // Planted bugs: the checks refuse a statement Citus runs on every shard.

    it.effect("refuses a list query without its workspace predicate", () =>
      Effect.gen(function* () {
        const { captured, engine, storage, unscoped } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        yield* engine.contacts.create(ctx, { email: "bug@example.com" })
        const list = yield* captured(
          storage.queryDocuments("contact", ctx.workspaceId, {
            where: { _tag: "True" },
            scope: "live",
            sort: { field: { name: "id", type: "id" }, direction: "asc" },
            after: null,
            limit: 10
          })
        )
        const [page] = list.routed
        expect(page!.sentTo).toBe("worker")
        expect(yield* Effect.promise(() => unscoped(page!.statement))).toEqual([])
        // The same read with the same values, the workspace's predicate left out: on the worker it
        // scans the whole shard, which holds other workspaces' rows too.
        const query = workerReadOf(page!.statement)!.query
        const bug = query.replace(/\bworkspace_id = \$1\[1\] AND /, "$1[1] IS NOT NULL AND ")
        expect(bug).not.toBe(query)
        const values = [...page!.statement.values]
        values[1] = Buffer.from(bug, "utf8")
        const leaked = yield* Effect.promise(() => unscoped({ ...page!.statement, values }))
        expect(leaked).toHaveLength(1)
        expect(leaked[0]).toMatch(/^ds_contacts_\d+$/)
      })
    )

    it.effect("refuses a stream read across shards, by its plan and by the database's setting", () =>
      Effect.gen(function* () {
        const { captured, engine, session, storage } = yield* Cluster
        const ctx = contextOf(fresh("ws"))
        const created = yield* engine.contacts.create(ctx, { email: "whole@example.com" })
        // A stream read without its workspace, as the port allows: every shard of the log is asked.
        const whole = yield* captured(storage.readStream(String(created.data["id"])))
        expect(whole.routed.map(({ routing }) => routing)).toEqual([{ _tag: "MultiShard", why: "Task Count 4" }])
        expect(whole.routed[0]!.statement.text).toMatch(/FROM ds_events WHERE stream_id = \$1 /)
        expect(Exit.isFailure(whole.exit)).toBe(true)
        expect(String(Exit.isFailure(whole.exit) ? whole.exit.cause : "")).toMatch(/multi-task/)
        // The setting is the database's: every session the storage opens has it.
        expect(yield* Effect.promise(() => session.query("SHOW citus.multi_task_query_log_level"))).toEqual(["error"])
        // And the workers' sessions too: the statements inside a delegated call (a commit) are held to it there.
        expect(
          yield* Effect.promise(() => session.query("SELECT result FROM run_command_on_workers($$SHOW citus.multi_task_query_log_level$$)"))
        ).toEqual(["error", "error"])
        const inWorkspace = yield* captured(storage.readStream(String(created.data["id"]), 0, ctx.workspaceId))
        expect(Exit.isSuccess(inWorkspace.exit)).toBe(true)
        expectOneWorker(inWorkspace.routed)
      })
    )
  })
})
