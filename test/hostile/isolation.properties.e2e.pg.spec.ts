import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Answer, hostFor, STORAGES } from "../http/client.js"
import { eventually, type Receiver, startReceiver } from "../webhooks/receiver.js"

/*
 * Workspace isolation as a property: three workspaces take turns at random operations (creating,
 * changing, deleting and restoring contacts, deals, pipelines and custom fields; reading, listing,
 * searching and filtering; and the same reads and writes aimed at the other workspaces' ids and
 * values). Every value a workspace writes carries its marker (`bravoqz17`), and every id is owned
 * by the workspace it was first shown to. Properties:
 * - no response to a workspace (body or header) holds another's id or value, unless the request
 *   itself named it (a 404 may quote the id it was asked for);
 * - no operation on another workspace's record succeeds;
 * - each workspace's webhook receiver gets exactly the events of its own deliveries list, each
 *   payload of its own workspace and free of the others' ids and values.
 * Each run has three workspaces of its own, new to the host, and its own receivers and webhooks:
 * nothing a run sees depends on an earlier run, so a shrunk counterexample replays as reported.
 * (test/http/isolation.e2e.pg.spec.ts is the scripted version.)
 */

const RUNS = 60
/**
 * Workspace triples the host has keys for: one per run, shrinking included (fast-check runs the
 * property again for every smaller candidate). Past the pool a candidate is skipped (fc.pre), which
 * ends shrinking with the smallest failure found so far instead of reporting a false one.
 */
const POOL = 400
const ROLES = ["alpha", "bravo", "charlie"] as const
type Ws = 0 | 1 | 2

interface Workspace {
  readonly id: string
  readonly key: string
  /** Every value this workspace writes starts with it (`bravo7qz123`). */
  readonly marker: string
}

const workspaceOf = (run: number, w: Ws): Workspace => ({
  id: `ws_iso${run}_${ROLES[w]}`,
  key: `key_iso_${run}_${ROLES[w]}_0123456789`,
  marker: `${ROLES[w]}${run}qz`
})

const API_KEYS = Array.from({ length: POOL }, (_, run) =>
  ([0, 1, 2] as const).map((w) => `${workspaceOf(run, w).id}:${workspaceOf(run, w).key}`)
)
  .flat()
  .join(",")
const ID = /\b(?:con|deal|pipe|stage|wh|dlv|evt|tle|act|comp)_[0-9a-z]{26}\b/g
const MARK = /(?:alpha|bravo|charlie)\d+qz\d+/g
const IS_MARK = /^(?:alpha|bravo|charlie)\d+qz\d+$/

type Kind = "contact" | "deal" | "pipeline" | "stage" | "field"

/** What one run has seen of its three workspaces: their records by kind, keys, receivers and webhooks. */
interface World {
  readonly workspaces: readonly [Workspace, Workspace, Workspace]
  /** The Idempotency-Keys each workspace has sent so far. */
  readonly keysUsed: Array<Set<string>>
  readonly pools: Array<Record<Kind, Array<string>>>
  readonly receivers: Array<Receiver>
  readonly webhooks: Array<string>
}

// ---------------------------------------------------------------------------------------------
// Operations

/**
 * A record of some workspace, resolved at run time from what it has made so far: the caller's own
 * (`relative` 0) or one of the two others'.
 */
interface Target {
  readonly relative: Ws
  readonly pick: number
}

type Op =
  | { readonly op: "createContact"; readonly n: number; readonly field: Target | null; readonly idempotencyKey: string | null }
  | {
      readonly op: "updateContact" | "createDeal" | "updateDeal" | "createPipeline" | "updatePipeline" | "createField"
      readonly n: number
      readonly target: Target
    }
  | {
      readonly op:
        | "deleteContact"
        | "restoreContact"
        | "getContact"
        | "deleteDeal"
        | "restoreDeal"
        | "getDeal"
        | "timeline"
        | "getPipeline"
        | "deleteField"
        | "webhook"
        | "deliveries"
        | "deleteWebhook"
      readonly target: Target
    }
  | { readonly op: "moveDeal"; readonly target: Target; readonly stage: Target }
  | { readonly op: "expandContact"; readonly target: Target }
  | { readonly op: "list"; readonly what: string; readonly target: Target; readonly n: number }
  | { readonly op: "sharedPipeline"; readonly idempotencyKey: string }

/** A target made absolute for the workspace acting. */
interface Owned {
  readonly owner: Ws
  readonly pick: number
}

interface Step {
  readonly ws: Ws
  readonly action: Op
}

const ws = fc.constantFrom<Ws>(0, 1, 2)
// Half the operations aim at the caller's own records (so that records pile up and writes
// succeed), the other half at one of the others'.
const target = fc.record({
  relative: fc.oneof({ weight: 2, arbitrary: fc.constant<Ws>(0) }, { weight: 1, arbitrary: fc.constantFrom<Ws>(1, 2) }),
  pick: fc.nat({ max: 50 })
})
const n = fc.nat({ max: 100_000 })
const LISTS = [
  "contacts",
  "contacts?search",
  "contacts?filter=email",
  "contacts?filter=field",
  "contacts?sort=field",
  "deals",
  "deals?search",
  "deals?contact_id",
  "deals?pipeline_id",
  "pipelines",
  "custom-fields",
  "trash?type=contact",
  "trash?type=deal",
  "webhooks"
]

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("createContact" as const),
      n,
      field: fc.option(target, { freq: 2 }),
      // Rarely: after its first use a key with another body is (rightly) a conflict.
      idempotencyKey: fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom("shared-1", "shared-2") }
      )
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constantFrom("updateContact" as const, "createDeal" as const, "updateDeal" as const, "createField" as const),
      n,
      target
    })
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom("createPipeline" as const, "updatePipeline" as const), n, target }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constantFrom(
        "deleteContact" as const,
        "restoreContact" as const,
        "getContact" as const,
        "deleteDeal" as const,
        "restoreDeal" as const,
        "getDeal" as const,
        "timeline" as const,
        "getPipeline" as const,
        "deleteField" as const,
        "webhook" as const,
        "deliveries" as const,
        "deleteWebhook" as const
      ),
      target
    })
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("moveDeal" as const), target, stage: target }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("expandContact" as const), target }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("list" as const), what: fc.constantFrom(...LISTS), target, n }) },
  // The same key and the same body from every workspace: each must get its own pipeline.
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("sharedPipeline" as const),
      idempotencyKey: fc.constantFrom("pipeline-1", "pipeline-2", "pipeline-3")
    })
  }
)

const steps = fc.array(fc.record({ ws, action: op }), { minLength: 10, maxLength: 30, size: "max" })

// ---------------------------------------------------------------------------------------------

describe.each(STORAGES)("%s storage: workspace isolation", (storage) => {
  const host = hostFor(storage, {
    apiKeys: API_KEYS,
    rateLimit: 1_000_000,
    rateBurst: 1_000_000,
    webhooks: { allowInsecure: true, retrySchedule: [50, 100], timeoutMillis: 5_000 }
  })
  // The world of the run under way: set afresh at the start of every run.
  let world: World
  const WORKSPACES = () => world.workspaces
  const value = (w: Ws, n: number) => `${world.workspaces[w].marker}${n}`
  const fieldKey = (w: Ws, n: number) => `f${value(w, n)}`

  // Across runs, for the checks only (never for what a run sends): how often each operation
  // answered with each status, the deliveries received, and which workspace each id and marker
  // belongs to, so that a run's data showing up in another run's workspaces counts as a leak too.
  const statuses = new Map<string, number>()
  const receivedPerRole = [0, 0, 0]
  const idOwner = new Map<string, string>()
  const markerOwner = new Map<string, string>()
  let runs = 0

  /** Ids and marked values in a text, whole tokens only (`bravo1qz1` is not part of `bravo1qz12`). */
  const tokensOf = (text: string) => [...[...text.matchAll(ID)].map(([id]) => id), ...[...text.matchAll(MARK)].map(([token]) => token)]

  /** The tokens of `text` that belong to a workspace other than `w`. */
  const othersIn = (w: Ws, text: string) =>
    tokensOf(text).filter((token) => {
      const owner = IS_MARK.test(token) ? markerOwner.get(token.replace(/\d+$/, "")) : idOwner.get(token)
      return owner !== undefined && owner !== world.workspaces[w].id
    })

  const resolve = (t: Owned, kind: Kind): string => {
    const pool = world.pools[t.owner]![kind]
    // Nothing of that kind yet: an id nobody has, which every route must treat as unknown.
    return pool.length === 0 ? `${kind === "field" ? "fnothing" : `${kind.slice(0, 3)}_nothing`}` : pool[t.pick % pool.length]!
  }

  /**
   * Sends as workspace `w` and checks the answer for the others' ids and values. A token the
   * request itself carries may come back (a 404 names the id it was asked for).
   */
  const call = async (w: Ws, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const answer = await host.call(method, path, {
      key: WORKSPACES()[w].key,
      headers,
      ...(body === undefined ? {} : { body })
    })
    expect(answer.status, `${method} ${path} ${answer.text}`).toBeLessThan(500)
    const idempotencyKey = headers["idempotency-key"]
    if (idempotencyKey !== undefined) {
      // A key this workspace never sent cannot clash: keys are per workspace.
      // (A 409 for another reason, such as the email being taken in this workspace, is no clash.)
      if (!world.keysUsed[w]!.has(idempotencyKey)) {
        expect(answer.body?.error?.code, `${WORKSPACES()[w].id}'s first use of ${idempotencyKey}: ${answer.text}`).not.toBe(
          "idempotency_conflict"
        )
      }
      world.keysUsed[w]!.add(idempotencyKey)
    }
    const sent = new Set(
      tokensOf(`${method} ${path} ${decodeURIComponent(path)} ${JSON.stringify(body) ?? ""} ${Object.values(headers).join(" ")}`)
    )
    const received = `${answer.text}\n${[...answer.headers.entries()]
      .filter(([name]) => name !== "x-request-id")
      .map(([n, v]) => `${n}: ${v}`)
      .join("\n")}`
    const leaked = othersIn(w, received).filter((token) => !sent.has(token))
    expect(leaked, `${WORKSPACES()[w].id}: ${method} ${path} answered with another workspace's data: ${answer.text.slice(0, 500)}`).toEqual(
      []
    )
    const tally = `${method} ${path
      .split("?")[0]!
      .replace(ID, ":id")
      .replace(/f?(?:alpha|bravo|charlie)\d+qz\d+/g, ":key")} ${answer.status}`
    statuses.set(tally, (statuses.get(tally) ?? 0) + 1)
    // Ids seen for the first time belong to the workspace they were shown to (checked above).
    for (const [id] of received.matchAll(ID)) if (!idOwner.has(id)) idOwner.set(id, WORKSPACES()[w].id)
    return answer
  }

  /** Another workspace's record is indistinguishable from a missing one: never a success. */
  const foreign = (w: Ws, t: Owned, answer: Answer, what: string) => {
    if (t.owner !== w)
      expect(answer.status, `${WORKSPACES()[w].id} ${what} on ${WORKSPACES()[t.owner].id}'s record: ${answer.text}`).toBeGreaterThanOrEqual(
        400
      )
  }

  const remember = (w: Ws, kind: Kind, answer: Answer, id?: string) => {
    if (answer.status < 300) world.pools[w]![kind].push(id ?? answer.body.id)
  }

  const run = async ({ action, ws: w }: Step) => {
    const at = (t: Target): Owned => ({ owner: ((w + t.relative) % 3) as Ws, pick: t.pick })
    switch (action.op) {
      case "sharedPipeline": {
        const answer = await call(
          w,
          "POST",
          "/v1/pipelines",
          { name: "Shared", stages: [{ name: "One" }] },
          { "idempotency-key": action.idempotencyKey }
        )
        expect(answer.status, answer.text).toBe(201)
        return remember(w, "pipeline", answer)
      }
      case "createContact": {
        const field = action.field === null ? null : resolve(at(action.field), "field")
        const body: Record<string, unknown> = {
          email: `${value(w, action.n)}@example.com`,
          first_name: `N ${value(w, action.n)}`,
          source: value(w, action.n + 1)
        }
        if (field !== null) body[field] = value(w, action.n)
        const answer = await call(
          w,
          "POST",
          "/v1/contacts",
          body,
          action.idempotencyKey === null ? {} : { "idempotency-key": action.idempotencyKey }
        )
        if (field !== null && at(action.field!).owner !== w)
          expect(answer.status, `another workspace's custom field ${field}`).toBeGreaterThanOrEqual(400)
        return remember(w, "contact", answer)
      }
      case "updateContact": {
        const answer = await call(w, "PATCH", `/v1/contacts/${resolve(at(action.target), "contact")}`, { title: value(w, action.n) })
        return foreign(w, at(action.target), answer, "PATCH contact")
      }
      case "deleteContact":
      case "restoreContact":
      case "getContact": {
        const id = resolve(at(action.target), "contact")
        const [method, path] =
          action.op === "deleteContact"
            ? ["DELETE", `/v1/contacts/${id}`]
            : action.op === "restoreContact"
              ? ["POST", `/v1/contacts/${id}/restore`]
              : ["GET", `/v1/contacts/${id}`]
        return foreign(w, at(action.target), await call(w, method, path), action.op)
      }
      case "expandContact":
        return foreign(
          w,
          at(action.target),
          await call(w, "GET", `/v1/contacts/${resolve(at(action.target), "contact")}?expand=deals,activities`),
          "expand"
        )
      case "createDeal": {
        const pipeline = (await call(w, "GET", "/v1/pipelines")).body.data[0]
        const contact = resolve(at(action.target), "contact")
        const answer = await call(w, "POST", "/v1/deals", {
          name: `D ${value(w, action.n)}`,
          pipeline_id: pipeline.id,
          value: 100 + action.n,
          contact_ids: [contact]
        })
        if (at(action.target).owner !== w)
          expect(answer.status, `a deal with ${WORKSPACES()[at(action.target).owner].id}'s contact`).toBeGreaterThanOrEqual(400)
        return remember(w, "deal", answer)
      }
      case "updateDeal":
        return foreign(
          w,
          at(action.target),
          await call(w, "PATCH", `/v1/deals/${resolve(at(action.target), "deal")}`, { name: `D ${value(w, action.n)}` }),
          "PATCH deal"
        )
      case "moveDeal": {
        const answer = await call(w, "PUT", `/v1/deals/${resolve(at(action.target), "deal")}/stage`, {
          stage_id: resolve(at(action.stage), "stage"),
          reason: value(w, 0)
        })
        foreign(w, at(action.target), answer, "move deal")
        return foreign(w, at(action.stage), answer, "move deal to a stage")
      }
      case "deleteDeal":
      case "restoreDeal":
      case "getDeal":
      case "timeline": {
        const id = resolve(at(action.target), "deal")
        const [method, path] =
          action.op === "deleteDeal"
            ? ["DELETE", `/v1/deals/${id}`]
            : action.op === "restoreDeal"
              ? ["POST", `/v1/deals/${id}/restore`]
              : action.op === "getDeal"
                ? ["GET", `/v1/deals/${id}`]
                : ["GET", `/v1/deals/${id}/timeline`]
        return foreign(w, at(action.target), await call(w, method, path), action.op)
      }
      case "createPipeline": {
        const answer = await call(w, "POST", "/v1/pipelines", {
          name: `P ${value(w, action.n)}`,
          stages: [{ name: value(w, action.n) }, { name: value(w, action.n + 1) }]
        })
        remember(w, "pipeline", answer)
        if (answer.status < 300) world.pools[w]!.stage.push(...answer.body.stages.map((stage: { id: string }) => stage.id))
        return
      }
      case "updatePipeline":
        return foreign(
          w,
          at(action.target),
          await call(w, "PATCH", `/v1/pipelines/${resolve(at(action.target), "pipeline")}`, { name: `P ${value(w, action.n)}` }),
          "PATCH pipeline"
        )
      case "getPipeline":
        return foreign(
          w,
          at(action.target),
          await call(w, "GET", `/v1/pipelines/${resolve(at(action.target), "pipeline")}`),
          "GET pipeline"
        )
      case "createField": {
        const key = fieldKey(w, action.n)
        const answer = await call(w, "POST", "/v1/custom-fields", { object: "contact", key, label: value(w, action.n), type: "text" })
        return remember(w, "field", answer, key)
      }
      case "deleteField": {
        const key = resolve(at(action.target), "field")
        const answer = await call(w, "DELETE", `/v1/custom-fields/contact/${key}`)
        foreign(w, at(action.target), answer, "DELETE custom field")
        if (answer.status < 300) world.pools[w]!.field.splice(world.pools[w]!.field.indexOf(key), 1)
        return
      }
      case "webhook":
        return foreign(w, at(action.target), await call(w, "GET", `/v1/webhooks/${world.webhooks[at(action.target).owner]}`), "GET webhook")
      case "deliveries": {
        const hook = world.webhooks[at(action.target).owner]!
        const answer = await call(w, "GET", `/v1/webhooks/${hook}/deliveries?limit=5`)
        foreign(w, at(action.target), answer, "list deliveries")
        const delivery = answer.status === 200 ? answer.body.data[0]?.id : undefined
        if (delivery !== undefined) {
          // And the same delivery through another workspace's eyes, and replayed by them.
          const other = ((w + 1 + (at(action.target).pick % 2)) % 3) as Ws
          expect((await call(other, "GET", `/v1/webhooks/${hook}/deliveries/${delivery}`)).status).toBe(404)
          expect((await call(other, "POST", `/v1/webhooks/${hook}/deliveries/${delivery}/replay`)).status).toBe(404)
        }
        return
      }
      case "deleteWebhook": {
        // Only another's webhook: a workspace's own stays, for the delivery check.
        if (at(action.target).owner === w) return
        return foreign(
          w,
          at(action.target),
          await call(w, "DELETE", `/v1/webhooks/${world.webhooks[at(action.target).owner]}`),
          "DELETE webhook"
        )
      }
      case "list": {
        const of = at(action.target)
        const email = `${value(of.owner, action.n)}@example.com`
        const field = resolve(of, "field")
        const path = {
          contacts: "/v1/contacts?limit=100",
          "contacts?search": `/v1/contacts?search=${value(of.owner, action.n)}`,
          "contacts?filter=email": `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ email }))}`,
          "contacts?filter=field": `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ [field]: { $exists: true } }))}`,
          "contacts?sort=field": `/v1/contacts?sort=-${field}&limit=100`,
          deals: "/v1/deals?limit=100",
          "deals?search": `/v1/deals?search=${value(of.owner, action.n)}`,
          "deals?contact_id": `/v1/deals?contact_id=${resolve(of, "contact")}`,
          "deals?pipeline_id": `/v1/deals?pipeline_id=${resolve(of, "pipeline")}`,
          pipelines: "/v1/pipelines",
          "custom-fields": "/v1/custom-fields",
          "trash?type=contact": "/v1/trash?type=contact&limit=100",
          "trash?type=deal": "/v1/trash?type=deal&limit=100",
          webhooks: "/v1/webhooks"
        }[action.what]!
        const answer = await call(w, "GET", path)
        // Searching for another's value finds nothing of theirs (checked by `call`); the list is ours.
        if (
          answer.status === 200 &&
          of.owner !== w &&
          Array.isArray(answer.body.data) &&
          /search|filter=email|contact_id|pipeline_id/.test(action.what)
        ) {
          expect(answer.body.data, `${path} as ${WORKSPACES()[w].id}`).toEqual([])
        }
        return
      }
    }
  }

  /** The deliveries of a workspace's webhook, every page. */
  const deliveriesOf = async (w: Ws) => {
    const all: Array<Record<string, any>> = []
    let cursor: string | null = null
    do {
      const answer = await call(
        w,
        "GET",
        `/v1/webhooks/${world.webhooks[w]}/deliveries?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`
      )
      expect(answer.status, answer.text).toBe(200)
      all.push(...answer.body.data)
      cursor = answer.body.next_cursor
    } while (cursor !== null)
    return all
  }

  /** Each receiver got exactly its workspace's deliveries: own workspace, own data only. */
  const checkWebhooks = async () => {
    for (const w of [0, 1, 2] as const) {
      const expected = await eventually(
        async () => {
          const deliveries = await deliveriesOf(w)
          return deliveries.every((d) => d["status"] === "succeeded") ? deliveries : undefined
        },
        `${WORKSPACES()[w].id}'s deliveries to succeed`,
        30_000
      )
      const eventIds = new Set(expected.map((d) => d["event_id"] as string))
      const receiver = world.receivers[w]!
      await receiver.waitFor(
        (got) => new Set(got.map((r) => r.headers["webhook-id"])).size >= eventIds.size,
        `${eventIds.size} events at ${WORKSPACES()[w].id}'s receiver`,
        30_000
      )
      for (const received of receiver.received) {
        const what = `${WORKSPACES()[w].id}'s receiver got ${received.rawBody.toString("utf8").slice(0, 400)}`
        expect(received.json?.workspace_id, what).toBe(WORKSPACES()[w].id)
        expect(eventIds.has(received.headers["webhook-id"] as string), what).toBe(true)
        expect(othersIn(w, received.rawBody.toString("utf8")), what).toEqual([])
      }
      expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(eventIds)
    }
  }

  /** A run's own world: three workspaces the host has never seen, each with a webhook to a receiver of its own. */
  const begin = async (run: number) => {
    const workspaces = [workspaceOf(run, 0), workspaceOf(run, 1), workspaceOf(run, 2)] as const
    for (const workspace of workspaces) markerOwner.set(workspace.marker, workspace.id)
    world = {
      workspaces,
      keysUsed: workspaces.map(() => new Set<string>()),
      pools: workspaces.map(() => ({ contact: [], deal: [], pipeline: [], stage: [], field: [] })),
      receivers: [],
      webhooks: []
    }
    for (const w of [0, 1, 2] as const) {
      const receiver = await startReceiver()
      world.receivers.push(receiver)
      const hook = await call(w, "POST", "/v1/webhooks", {
        url: `${receiver.url}/${workspaces[w].id}`,
        events: ["*"],
        secret: `sk_${workspaces[w].marker}_0123456789`
      })
      expect(hook.status, hook.text).toBe(201)
      world.webhooks.push(hook.body.id)
      const pipelines = await call(w, "GET", "/v1/pipelines")
      for (const pipeline of pipelines.body.data) {
        world.pools[w]!.pipeline.push(pipeline.id)
        world.pools[w]!.stage.push(...pipeline.stages.map((stage: { id: string }) => stage.id))
      }
      const field = await call(w, "POST", "/v1/custom-fields", { object: "contact", key: fieldKey(w, 0), label: value(w, 0), type: "text" })
      remember(w, "field", field, fieldKey(w, 0))
    }
  }

  /** The run's webhooks deleted (nothing more is sent for it) and its receivers closed. */
  const end = async () => {
    for (const w of [0, 1, 2] as const) {
      receivedPerRole[w] = receivedPerRole[w]! + (world.receivers[w]?.received.length ?? 0)
      if (world.webhooks[w] !== undefined) await host.call("DELETE", `/v1/webhooks/${world.webhooks[w]}`, { key: world.workspaces[w].key })
    }
    for (const receiver of world.receivers) await receiver.close()
  }

  it("no answer or webhook delivery to one workspace carries another's ids or values", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        fc.pre(runs < POOL)
        await begin(runs++)
        try {
          for (const step of sequence) await run(step)
          await checkWebhooks()
        } finally {
          await end()
        }
      }),
      { numRuns: RUNS }
    )
    // The runs did what they are for: each workspace wrote, was refused the others' records, and
    // got deliveries.
    const count = (pattern: RegExp) => [...statuses].filter(([tally]) => pattern.test(tally)).reduce((sum, [, n]) => sum + n, 0)
    expect(count(/^POST \/v1\/contacts 201$/), JSON.stringify([...statuses])).toBeGreaterThan(20)
    expect(count(/^(PATCH|DELETE|PUT|POST) \/v1\/(contacts|deals|pipelines|webhooks|custom-fields)\/.* 404$/)).toBeGreaterThan(20)
    expect(count(/^GET \/v1\/contacts\/:id 200$/)).toBeGreaterThan(0)
    for (const received of receivedPerRole) expect(received).toBeGreaterThan(10)
  }, 600_000)
})
