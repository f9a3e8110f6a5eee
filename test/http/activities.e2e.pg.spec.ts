import { describe, expect, it } from "vitest"
import { as, receiverForTest, register, WEBHOOK_API_KEYS, workspaces } from "../webhooks/support.js"
import { type Answer, errorOf, hostFor, STORAGES } from "./client.js"

type Json = Record<string, any>

/** An activity's keys in the API's order (its field table), custom keys sorted before the timestamps. */
const ACTIVITY_KEYS = ["id", "type", "subject", "body", "due_at", "done_at", "owner_id", "contact_ids", "deal_ids", "company_ids"]
const keysOf = (custom: ReadonlyArray<string> = []) => [...ACTIVITY_KEYS, ...[...custom].sort(), "created_at", "updated_at"]

describe.each(STORAGES)("activities on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true } })
  const workspace = workspaces()

  /** The calling test's own workspace, and the writes every test makes. */
  const setUp = () => {
    const api = as(host, workspace())
    const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json> => {
      const answer = await api.call(method, path, { ...(body === undefined ? {} : { body }), headers })
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300)
      return answer.body
    }
    let made = 0
    const contact = () => ok("POST", "/v1/contacts", { email: `person${made++}@example.com` })
    const deal = async (body: Json = {}) => {
      const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
      return ok("POST", "/v1/deals", { name: `Deal ${made++}`, pipeline_id: pipeline.id, ...body })
    }
    const activity = (body: Json) => ok("POST", "/v1/activities", { type: "note", subject: "A note", ...body })
    /** Every page of a list, walked with its cursor. */
    const walk = async (query: string): Promise<Array<Json>> => {
      const out: Array<Json> = []
      let cursor: string | null = null
      for (let pages = 0; pages < 50; pages++) {
        const answer: Answer = await api.call("GET", `/v1/activities?${query}${cursor === null ? "" : `&cursor=${cursor}`}`)
        expect(answer.status, answer.text).toBe(200)
        out.push(...answer.body.data)
        cursor = answer.body.next_cursor
        if (cursor === null) return out
      }
      throw new Error("more than 50 pages")
    }
    const ids = async (query: string) => (await walk(query)).map((a) => a["id"] as string)
    const activityEvents = async () => (await ok("GET", "/v1/events?types=activity.*&limit=1000")).data as Array<Json>
    return { api, ok, contact, deal, activity, walk, ids, activityEvents }
  }

  /** A 400 in the error shape, at these paths. */
  const refused = (answer: Answer, paths: ReadonlyArray<string>) => {
    expect(answer.status, answer.text).toBe(400)
    const error = errorOf(answer)
    expect(error.code).toBe("validation_error")
    expect(error.details.map((d) => d.path)).toEqual(paths)
    return error
  }

  it("creates each type linked to contacts, deals or both, and answers it as GET and the list show it", async () => {
    const { activity, api, contact, deal, ok } = setUp()
    const ada = await contact()
    const grace = await contact()
    const renewal = await deal({ contact_ids: [ada.id] })
    const bodies: Array<Json> = [
      { type: "note", subject: "  Met at the fair  ", body: "Wants a demo.", contact_ids: [ada.id, grace.id, ada.id] },
      { type: "task", subject: "Send the proposal", due_at: "2026-03-01T10:00:00+01:00", owner_id: "user_1", deal_ids: [renewal.id] },
      { type: "call", subject: "Intro call", contact_ids: [grace.id], deal_ids: [renewal.id] },
      { type: "meeting", subject: "Kick-off", due_at: "2026-03-02T09:30:00Z", contact_ids: [ada.id] },
      { type: "email", subject: "Follow-up", body: "Sent the deck", deal_ids: [renewal.id] }
    ]
    const made: Array<Json> = []
    for (const body of bodies) {
      const answer = await api.call("POST", "/v1/activities", { body })
      expect(answer.status, answer.text).toBe(201)
      expect(answer.headers.get("location")).toBe(`/v1/activities/${answer.body.id}`)
      expect(answer.headers.get("etag")).toBe('"1"')
      expect(Object.keys(answer.body)).toEqual(keysOf())
      const got = await api.call("GET", `/v1/activities/${answer.body.id}`)
      expect(got.status).toBe(200)
      expect(got.text).toBe(answer.text)
      made.push(answer.body)
    }
    const [note, task, call, meeting, email] = made as [Json, Json, Json, Json, Json]
    expect(note).toEqual({
      id: note.id,
      type: "note",
      subject: "Met at the fair",
      body: "Wants a demo.",
      due_at: null,
      done_at: null,
      owner_id: null,
      contact_ids: [ada.id, grace.id],
      deal_ids: [],
      company_ids: [],
      created_at: note.created_at,
      updated_at: note.created_at
    })
    expect(note.id).toMatch(/^act_/)
    expect(task).toMatchObject({ due_at: "2026-03-01T09:00:00.000Z", owner_id: "user_1", contact_ids: [], deal_ids: [renewal.id] })
    expect(call).toMatchObject({ contact_ids: [grace.id], deal_ids: [renewal.id], due_at: null })
    expect(meeting.due_at).toBe("2026-03-02T09:30:00.000Z")
    expect(email).toMatchObject({ body: "Sent the deck", deal_ids: [renewal.id] })

    const listed = await ok("GET", "/v1/activities")
    expect(listed.data).toEqual(made)
    expect(listed.next_cursor).toBeNull()
    // Neither contacts nor deals change when an activity names them.
    expect((await ok("GET", `/v1/contacts/${ada.id}`)).updated_at).toBe(ada.updated_at)
    expect((await ok("GET", `/v1/deals/${renewal.id}`)).updated_at).toBe(renewal.updated_at)
  })

  it("refuses every invalid write with 400 in the error shape, and changes nothing", async () => {
    const { activity, activityEvents, api, contact, deal, ok } = setUp()
    const ada = await contact()
    const gone = await contact()
    await ok("DELETE", `/v1/contacts/${gone.id}`)
    const renewal = await deal()
    const task = await activity({ type: "task", subject: "Call back", due_at: "2026-04-01T08:00:00Z", contact_ids: [ada.id] })
    const before = await activityEvents()
    const listedBefore = await ok("GET", "/v1/activities")

    const creates: Array<[Json, ReadonlyArray<string>]> = [
      [{ type: "note", subject: "Nothing" }, ["contact_ids"]],
      [{ type: "note", subject: "Empty", contact_ids: [], deal_ids: [], company_ids: [] }, ["contact_ids"]],
      [{ type: "note", subject: "Unknown", contact_ids: [ada.id, "con_nope"] }, ["contact_ids[1]"]],
      [{ type: "note", subject: "Deleted", contact_ids: [gone.id] }, ["contact_ids[0]"]],
      [{ type: "note", subject: "Unknown deal", deal_ids: ["deal_nope"] }, ["deal_ids[0]"]],
      [{ type: "note", subject: "Contact as deal", deal_ids: [ada.id] }, ["deal_ids[0]"]],
      [{ type: "note", subject: "Unknown company", company_ids: ["comp_nope"] }, ["company_ids[0]"]],
      [{ type: "note", subject: "Due note", due_at: "2026-04-01T08:00:00Z", contact_ids: [ada.id] }, ["due_at"]],
      [{ type: "call", subject: "Due call", due_at: "2026-04-01T08:00:00Z", deal_ids: [renewal.id] }, ["due_at"]],
      [{ type: "task", subject: "Bad time", due_at: "2026-04-01 08:00", contact_ids: [ada.id] }, ["due_at"]],
      [{ type: "task", subject: "No day", due_at: "2026-02-30T08:00:00Z", contact_ids: [ada.id] }, ["due_at"]],
      [{ type: "lunch", subject: "Bad type", contact_ids: [ada.id] }, ["type"]],
      [{ subject: "No type", contact_ids: [ada.id] }, ["type"]],
      [{ type: "note", subject: "   ", contact_ids: [ada.id] }, ["subject"]],
      [{ type: "note", subject: "Typo", contact_id: ada.id, contact_ids: [ada.id] }, ["contact_id"]],
      [{ type: "note", subject: "Read-only", done_at: "2026-04-01T08:00:00Z", contact_ids: [ada.id] }, ["done_at"]],
      [{ type: "note", subject: "Bad done", done: "yes", contact_ids: [ada.id] }, ["done"]],
      [{ type: "note", subject: "Null done", done: null, contact_ids: [ada.id] }, ["done"]],
      [{ type: "note", subject: "Too many", contact_ids: Array.from({ length: 101 }, (_, i) => `con_${i}`) }, ["contact_ids"]],
      [{ type: "note", subject: "Not a list", contact_ids: ada.id }, ["contact_ids"]]
    ]
    for (const [body, paths] of creates) refused(await api.call("POST", "/v1/activities", { body }), paths)
    const noLink = refused(await api.call("POST", "/v1/activities", { body: { type: "note", subject: "Nothing" } }), ["contact_ids"])
    for (const list of ["contact_ids", "deal_ids", "company_ids"]) expect(noLink.message).toContain(list)

    const patches: Array<[Json, ReadonlyArray<string>]> = [
      [{ type: "note" }, ["due_at"]],
      [{ type: "email", subject: "x" }, ["due_at"]],
      [{ contact_ids: [] }, ["contact_ids"]],
      [{ contact_ids: [gone.id] }, ["contact_ids[0]"]],
      [{ deal_ids: ["deal_nope"] }, ["deal_ids[0]"]],
      [{ due_at: "tomorrow" }, ["due_at"]],
      [{ type: null }, ["type"]],
      [{ done: 1 }, ["done"]],
      [{ colour: "red" }, ["colour"]],
      [{ id: "act_other" }, ["id"]]
    ]
    for (const [body, paths] of patches) refused(await api.call("PATCH", `/v1/activities/${task.id}`, { body }), paths)
    const note = await activity({ contact_ids: [ada.id] })
    refused(await api.call("PATCH", `/v1/activities/${note.id}`, { body: { due_at: "2026-04-01T08:00:00Z" } }), ["due_at"])

    const after = await ok("GET", `/v1/activities/${task.id}`)
    expect(after).toEqual(task)
    const events = await activityEvents()
    expect(events.map((e) => e["id"])).toEqual([...before.map((e) => e["id"]), events.at(-1)!["id"]])
    expect(events.at(-1)).toMatchObject({ type: "activity.created", data: { activity: { id: note.id } } })
    expect((await ok("GET", "/v1/activities")).data).toEqual([...listedBefore.data, note])
    // The workspace's other records are untouched.
    expect(await ok("GET", `/v1/contacts/${ada.id}`)).toEqual(ada)
    expect((await api.call("GET", `/v1/activities/act_nope`)).status).toBe(404)
    expect((await api.call("PATCH", `/v1/activities/act_nope`, { body: { subject: "x" } })).status).toBe(404)
  })

  it("marks done and open again, with done_at the time of the write; done again changes nothing", async () => {
    const { activity, api, contact, ok } = setUp()
    const ada = await contact()
    const task = await activity({ type: "task", subject: "Send contract", due_at: "2026-05-01T12:00:00Z", contact_ids: [ada.id] })
    const done = await api.call("PATCH", `/v1/activities/${task.id}`, { body: { done: true } })
    expect(done.status, done.text).toBe(200)
    expect(done.headers.get("etag")).toBe('"2"')
    // The time of the write: the updated_at the same event set, and not before the task was created.
    expect(done.body.done_at).toBe(done.body.updated_at)
    expect(done.body.done_at >= task.created_at).toBe(true)
    const events = await ok("GET", `/v1/events?types=activity.updated&limit=1000`)
    const doneEvent = events.data.find((event: Json) => event.data.activity.id === task.id)
    expect(doneEvent.data.activity.done_at).toBe(done.body.done_at)
    expect(done.body).toEqual({ ...task, done_at: done.body.done_at, updated_at: done.body.done_at })

    const again = await api.call("PATCH", `/v1/activities/${task.id}`, { body: { done: true } })
    expect(again.status).toBe(200)
    expect(again.headers.get("etag")).toBe('"2"')
    expect(again.body).toEqual(done.body)

    const reopened = await ok("PATCH", `/v1/activities/${task.id}`, { done: false, subject: "Send the contract" })
    expect(reopened).toMatchObject({ done_at: null, subject: "Send the contract" })
    expect(reopened.updated_at > done.body.updated_at).toBe(true)

    // Any type may be done, also from its creation.
    const note = await activity({ contact_ids: [ada.id], done: true })
    expect(note.done_at).toBe(note.created_at)
    const call = await activity({ type: "call", contact_ids: [ada.id], done: false })
    expect(call.done_at).toBeNull()
    expect((await ok("PATCH", `/v1/activities/${call.id}`, { done: true })).done_at).not.toBeNull()

    const history = await ok("GET", `/v1/activities/${task.id}/history`)
    expect(history.data.map((e: Json) => e["type"])).toEqual(["activity.created", "activity.updated", "activity.updated"])
    expect(history.data[1].changes).toEqual([{ field: "done_at", from: null, to: done.body.done_at }])
    expect(history.data[2].changes).toEqual([
      { field: "subject", from: "Send contract", to: "Send the contract" },
      { field: "done_at", from: done.body.done_at, to: null }
    ])
    // The task's due_at is a field of its creation like any other.
    expect((await ok("GET", `/v1/activities/${task.id}/history`)).data[0].changes).toContainEqual({
      field: "due_at",
      from: null,
      to: "2026-05-01T12:00:00.000Z"
    })
  })

  it("lists by each parameter alone and combined, and refuses bad parameters", async () => {
    const { activity, api, contact, deal, ids, ok } = setUp()
    const [c1, c2, c3] = [await contact(), await contact(), await contact()]
    const d1 = await deal()
    const a1 = await activity({ type: "task", subject: "a1", due_at: "2026-03-01T00:00:00Z", contact_ids: [c1.id] })
    const a2 = await activity({ type: "meeting", subject: "a2", due_at: "2026-02-01T00:00:00Z", contact_ids: [c1.id], deal_ids: [d1.id] })
    const a3 = await activity({ type: "note", subject: "a3", deal_ids: [d1.id], done: true })
    const a4 = await activity({ type: "call", subject: "a4", contact_ids: [c2.id], owner_id: "user_1" })
    const a5 = await activity({ type: "email", subject: "a5", contact_ids: [c1.id, c2.id], owner_id: "user_1", done: true })
    await activity({ type: "note", subject: "c3's", contact_ids: [c3.id] })
    await ok("DELETE", `/v1/contacts/${c3.id}`)

    const cases: Array<[string, ReadonlyArray<Json>]> = [
      ["type=task", [a1]],
      ["type=email", [a5]],
      [`contact_id=${c1.id}`, [a1, a2, a5]],
      [`contact_id=${c2.id}`, [a4, a5]],
      [`deal_id=${d1.id}`, [a2, a3]],
      ["owner_id=user_1", [a4, a5]],
      ["done=true", [a3, a5]],
      [`done=false&contact_id=${c1.id}`, [a1, a2]],
      [`contact_id=${c1.id}&done=true`, [a5]],
      [`contact_id=${c1.id}&deal_id=${d1.id}`, [a2]],
      [`contact_id=${c2.id}&owner_id=user_1&type=call`, [a4]],
      [`contact_id=${c1.id}&type=note`, []],
      // A record in the trash, or one that never was, is on no activity as shown.
      [`contact_id=${c3.id}`, []],
      ["contact_id=con_nope", []],
      ["company_id=comp_nope", []],
      [`filter=${encodeURIComponent(JSON.stringify({ type: { $in: ["task", "meeting"] } }))}`, [a1, a2]],
      [`filter=${encodeURIComponent(JSON.stringify({ due_at: { $gte: "2026-02-15T00:00:00.000Z" } }))}`, [a1]],
      [`filter=${encodeURIComponent(JSON.stringify({ done_at: { $exists: true }, owner_id: "user_1" }))}`, [a5]],
      [`deal_id=${d1.id}&filter=${encodeURIComponent(JSON.stringify({ $not: { subject: "a2" } }))}`, [a3]]
    ]
    for (const [query, want] of cases) {
      expect(await ids(`${query}&limit=2`), query).toEqual(want.map((a) => a["id"]))
    }
    const page = await ok("GET", `/v1/activities?contact_id=${c1.id}`)
    expect(page.data).toEqual([a1, a2, a5].map((a) => ({ ...a })))

    const bad: Array<[string, ReadonlyArray<string>]> = [
      ["type=lunch", ["type"]],
      ["done=yes", ["done"]],
      ["done=", ["done"]],
      ["contact_id=", ["contact_id"]],
      ["owner_id=", ["owner_id"]],
      ["search=a1", ["search"]],
      ["sort=subject", ["sort"]],
      ["sort=-type", ["sort"]],
      ["status=open", ["status"]],
      ["limit=0", ["limit"]],
      ["limit=101", ["limit"]],
      ["cursor=nonsense", ["cursor"]],
      [`filter=${encodeURIComponent(JSON.stringify({ contact_ids: c1.id }))}`, ["filter.contact_ids"]],
      [`filter=${encodeURIComponent(JSON.stringify({ due_at: { $gt: 3 } }))}`, ["filter.due_at.$gt"]],
      ["filter=%7B", ["filter"]]
    ]
    for (const [query, paths] of bad) refused(await api.call("GET", `/v1/activities?${query}`), paths)
  })

  it("sorts by due_at, created_at and updated_at both ways, walking pages to the same order", async () => {
    const { activity, contact, ids, ok } = setUp()
    const ada = await contact()
    const made: Array<Json> = []
    const dues = ["2026-06-03T00:00:00Z", null, "2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z", null, "2026-06-01T00:00:00Z", null]
    for (const [i, due] of dues.entries()) {
      made.push(
        await activity(
          due === null
            ? { subject: `s${i}`, contact_ids: [ada.id] }
            : { type: "task", subject: `s${i}`, due_at: due, contact_ids: [ada.id] }
        )
      )
    }
    // Touched in this order, so updated_at orders them so.
    const touched = [3, 0, 6, 1]
    for (const i of touched) {
      made[i] = await ok("PATCH", `/v1/activities/${made[i]!["id"]}`, { body: `touched ${i}` })
    }
    const byId = (a: Json, b: Json) => (a["id"] < b["id"] ? -1 : a["id"] > b["id"] ? 1 : 0)
    // API.md: ties broken by id in the sort's direction; absent values last ascending, first descending.
    const ordered = (key: string) =>
      [...made].sort((a, b) => {
        const [x, y] = [a[key], b[key]]
        if (x === y) return byId(a, b)
        if (x === null) return 1
        if (y === null) return -1
        return x < y ? -1 : 1
      })
    for (const key of ["due_at", "created_at", "updated_at"]) {
      const asc = ordered(key).map((a) => a["id"])
      expect(await ids(`sort=${key}&limit=2`), key).toEqual(asc)
      expect(await ids(`sort=-${key}&limit=3`), `-${key}`).toEqual([...asc].reverse())
    }
    expect(await ids("limit=3")).toEqual(made.map((a) => a["id"]))
    expect(
      ordered("updated_at")
        .slice(-4)
        .map((a) => a["subject"])
    ).toEqual(touched.map((i) => `s${i}`))
  })

  it("hides a linked record while it is in the trash and shows it again once restored; a patch keeps the hidden link", async () => {
    const { activity, api, contact, deal, ids, ok } = setUp()
    const [ada, grace, linus] = [await contact(), await contact(), await contact()]
    const renewal = await deal()
    const shared = await activity({ type: "call", subject: "Three-way", contact_ids: [ada.id, grace.id], deal_ids: [renewal.id] })
    const only = await activity({ subject: "Ada alone", contact_ids: [ada.id] })

    await ok("DELETE", `/v1/contacts/${ada.id}`)
    await ok("DELETE", `/v1/deals/${renewal.id}`)
    expect(await ok("GET", `/v1/activities/${shared.id}`)).toEqual({ ...shared, contact_ids: [grace.id], deal_ids: [] })
    // An activity whose only link is in the trash stays, showing no link, and can still be changed.
    expect((await ok("GET", `/v1/activities/${only.id}`)).contact_ids).toEqual([])
    expect((await ok("PATCH", `/v1/activities/${only.id}`, { subject: "Ada, later" })).contact_ids).toEqual([])
    expect(await ids(`contact_id=${ada.id}`)).toEqual([])
    expect(await ids(`contact_id=${grace.id}`)).toEqual([shared.id])

    // The client sends back what it was shown, plus Linus: Ada's hidden link stays where it was.
    const patched = await ok("PATCH", `/v1/activities/${shared.id}`, { contact_ids: [grace.id, linus.id], deal_ids: [] })
    expect(patched).toMatchObject({ contact_ids: [grace.id, linus.id], deal_ids: [] })
    // Emptying what is shown is allowed while a hidden link remains.
    expect((await ok("PATCH", `/v1/activities/${only.id}`, { contact_ids: [] })).contact_ids).toEqual([])
    // A trashed record cannot be linked anew.
    refused(await api.call("PATCH", `/v1/activities/${shared.id}`, { body: { deal_ids: [renewal.id] } }), ["deal_ids[0]"])

    await ok("POST", `/v1/contacts/${ada.id}/restore`)
    await ok("POST", `/v1/deals/${renewal.id}/restore`)
    expect(await ok("GET", `/v1/activities/${shared.id}`)).toMatchObject({
      contact_ids: [ada.id, grace.id, linus.id],
      deal_ids: [renewal.id]
    })
    expect((await ok("GET", `/v1/activities/${only.id}`)).contact_ids).toEqual([ada.id])
    expect(await ids(`contact_id=${ada.id}`)).toEqual([shared.id, only.id])
    expect(await ids(`deal_id=${renewal.id}`)).toEqual([shared.id])
  })

  it("links to companies: lists by company_id, hides a company in the trash, and expand=activities shows a company's newest 100", async () => {
    const { activity, api, contact, ids, ok, walk } = setUp()
    const company = () => ok("POST", "/v1/companies", { name: `Company ${Math.random().toString(36).slice(2, 8)}` })
    const [acme, globex] = [await company(), await company()]
    const ada = await contact()
    const alone = await activity({ type: "meeting", subject: "Board", due_at: "2026-09-01T10:00:00Z", company_ids: [acme.id] })
    expect(alone).toMatchObject({ contact_ids: [], deal_ids: [], company_ids: [acme.id] })
    const both = await activity({ subject: "Both", company_ids: [acme.id, globex.id], contact_ids: [ada.id] })
    expect(await ids(`company_id=${acme.id}`)).toEqual([alone.id, both.id])
    expect(await ids(`company_id=${globex.id}&contact_id=${ada.id}`)).toEqual([both.id])

    await ok("DELETE", `/v1/companies/${globex.id}`)
    expect((await ok("GET", `/v1/activities/${both.id}`)).company_ids).toEqual([acme.id])
    expect(await ids(`company_id=${globex.id}`)).toEqual([])
    refused(await api.call("POST", "/v1/activities", { body: { type: "note", subject: "x", company_ids: [globex.id] } }), [
      "company_ids[0]"
    ])
    await ok("POST", `/v1/companies/${globex.id}/restore`)
    expect((await ok("GET", `/v1/activities/${both.id}`)).company_ids).toEqual([acme.id, globex.id])

    // 101 more on Acme, one of them deleted and one naming a contact in the trash.
    const grace = await contact()
    for (let i = 0; i < 101; i++) {
      await activity({ subject: `Bulk ${i}`, company_ids: [acme.id], ...(i === 50 ? { contact_ids: [grace.id] } : {}) })
    }
    const doomed = await activity({ subject: "Doomed", company_ids: [acme.id] })
    await ok("DELETE", `/v1/activities/${doomed.id}`)
    await ok("DELETE", `/v1/contacts/${grace.id}`)
    const expanded = await ok("GET", `/v1/companies/${acme.id}?expand=activities`)
    const newest = (await walk(`company_id=${acme.id}&sort=-created_at&limit=100`)).slice(0, 100)
    expect(expanded.activities).toHaveLength(100)
    expect(expanded.activities).toEqual(newest)
    expect(expanded.activities[0].subject).toBe("Bulk 100")
    expect(expanded.activities.map((a: Json) => a["id"])).not.toContain(doomed.id)
    expect(expanded.activities.map((a: Json) => a["id"])).not.toContain(alone.id)
    expect(expanded.activities.find((a: Json) => a["subject"] === "Bulk 50").contact_ids).toEqual([])
    expect((await ok("GET", `/v1/companies/${globex.id}?expand=activities`)).activities).toEqual([
      await ok("GET", `/v1/activities/${both.id}`)
    ])
  })

  it("shows a contact's and a deal's live activities with expand=activities, newest first, as GET shows them", async () => {
    const { activity, contact, deal, ok } = setUp()
    const [ada, grace] = [await contact(), await contact()]
    const renewal = await deal({ contact_ids: [ada.id] })
    const a1 = await activity({ subject: "a1", contact_ids: [ada.id] })
    const a2 = await activity({ type: "task", subject: "a2", contact_ids: [ada.id], deal_ids: [renewal.id] })
    const a3 = await activity({ type: "call", subject: "a3", deal_ids: [renewal.id] })
    await activity({ type: "email", subject: "a4", contact_ids: [grace.id] })
    const a5 = await activity({ type: "meeting", subject: "a5", contact_ids: [ada.id] })
    const a6 = await activity({ subject: "a6", contact_ids: [grace.id, ada.id] })
    await ok("DELETE", `/v1/activities/${a5.id}`)
    await ok("DELETE", `/v1/contacts/${grace.id}`)
    const shown = async (...activities: Array<Json>) => Promise.all(activities.map((a) => ok("GET", `/v1/activities/${a["id"]}`)))

    const expandedContact = await ok("GET", `/v1/contacts/${ada.id}?expand=activities`)
    expect(expandedContact.activities).toEqual(await shown(a6, a2, a1))
    expect(expandedContact.activities[0].contact_ids).toEqual([ada.id])
    expect((await ok("GET", `/v1/deals/${renewal.id}?expand=activities`)).activities).toEqual(await shown(a3, a2))

    await ok("POST", `/v1/activities/${a5.id}/restore`)
    await ok("POST", `/v1/contacts/${grace.id}/restore`)
    expect((await ok("GET", `/v1/contacts/${ada.id}?expand=activities`)).activities).toEqual(await shown(a6, a5, a2, a1))
    expect((await ok("GET", `/v1/contacts/${grace.id}?expand=activities`)).activities.map((a: Json) => a["subject"])).toEqual(["a6", "a4"])
  })

  it("goes to the trash and back, with If-Match and Idempotency-Key, and keeps its history", async () => {
    const { activity, api, contact, ok } = setUp()
    const ada = await contact()
    const key = { "idempotency-key": "activity-create-1" }
    const body = { type: "meeting", subject: "Review", due_at: "2026-07-01T15:00:00Z", contact_ids: [ada.id] }
    const first = await api.call("POST", "/v1/activities", { body, headers: key })
    expect(first.status, first.text).toBe(201)
    const replay = await api.call("POST", "/v1/activities", { body, headers: key })
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body).toEqual(first.body)
    const conflict = await api.call("POST", "/v1/activities", { body: { ...body, subject: "Other" }, headers: key })
    expect(conflict.status).toBe(409)
    expect(errorOf(conflict).code).toBe("idempotency_conflict")
    expect((await ok("GET", "/v1/activities")).data.map((a: Json) => a["id"])).toEqual([first.body.id])
    const meeting = first.body as Json
    await activity({ subject: "Stays", contact_ids: [ada.id] })

    const stale = await api.call("PATCH", `/v1/activities/${meeting.id}`, { body: { subject: "x" }, headers: { "if-match": '"7"' } })
    expect(stale.status).toBe(412)
    const patched = await api.call("PATCH", `/v1/activities/${meeting.id}`, {
      body: { subject: "Quarterly review" },
      headers: { "if-match": '"1"' }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.headers.get("etag")).toBe('"2"')
    expect((await api.call("DELETE", `/v1/activities/${meeting.id}`, { headers: { "if-match": '"1"' } })).status).toBe(412)
    expect((await api.call("DELETE", `/v1/activities/${meeting.id}`, { headers: { "if-match": '"2"' } })).status).toBe(204)
    expect((await api.call("GET", `/v1/activities/${meeting.id}`)).status).toBe(404)
    expect((await api.call("PATCH", `/v1/activities/${meeting.id}`, { body: { subject: "y" } })).status).toBe(404)
    expect((await api.call("DELETE", `/v1/activities/${meeting.id}`)).status).toBe(404)
    expect((await ok("GET", "/v1/activities")).data.map((a: Json) => a["subject"])).toEqual(["Stays"])

    const trash = await ok("GET", "/v1/trash?type=activity")
    expect(trash.data).toHaveLength(1)
    const item = trash.data[0]
    expect(item).toMatchObject({ type: "activity", id: meeting.id, record: patched.body })
    expect(Date.parse(item.purge_at) - Date.parse(item.deleted_at)).toBe(30 * 24 * 3600 * 1000)
    expect(Object.keys(item.record)).toEqual(keysOf())

    const restoreKey = { "idempotency-key": "activity-restore-1" }
    const restored = await api.call("POST", `/v1/activities/${meeting.id}/restore`, { headers: restoreKey })
    expect(restored.status, restored.text).toBe(200)
    expect(restored.body).toEqual(patched.body)
    const restoredAgain = await api.call("POST", `/v1/activities/${meeting.id}/restore`, { headers: restoreKey })
    expect(restoredAgain.headers.get("idempotent-replayed")).toBe("true")
    expect((await api.call("POST", `/v1/activities/${meeting.id}/restore`)).status).toBe(404)
    expect((await ok("GET", "/v1/trash?type=activity")).data).toEqual([])
    expect(await ok("GET", `/v1/activities/${meeting.id}`)).toEqual(patched.body)

    const history = await ok("GET", `/v1/activities/${meeting.id}/history?limit=2`)
    expect(history.data.map((e: Json) => e["type"])).toEqual(["activity.created", "activity.updated"])
    expect(history.data[0].changes).toContainEqual({ field: "subject", from: null, to: "Review" })
    expect(history.data[0].changes).toContainEqual({ field: "contact_ids", from: null, to: [ada.id] })
    expect(history.data[1].changes).toEqual([{ field: "subject", from: "Review", to: "Quarterly review" }])
    const rest = await ok("GET", `/v1/activities/${meeting.id}/history?limit=2&cursor=${history.next_cursor}`)
    expect(rest.data.map((e: Json) => e["type"])).toEqual(["activity.deleted", "activity.restored"])
    expect((await api.call("GET", "/v1/activities/act_nope/history")).status).toBe(404)
  })

  it("takes custom fields of object activity: typed, filtered, sorted, in the record's key order", async () => {
    const { activity, api, contact, ids, ok } = setUp()
    await ok("POST", "/v1/custom-fields", { object: "activity", key: "outcome", label: "Outcome", type: "enum", options: ["won", "lost"] })
    await ok("POST", "/v1/custom-fields", { object: "activity", key: "minutes", label: "Minutes", type: "number" })
    await ok("POST", "/v1/custom-fields", { object: "contact", key: "tier", label: "Tier", type: "text" })
    const ada = await contact()
    const long = await activity({ type: "call", subject: "Long", minutes: 45, outcome: "won", contact_ids: [ada.id] })
    expect(long).toMatchObject({ minutes: 45, outcome: "won" })
    expect(Object.keys(long)).toEqual(keysOf(["minutes", "outcome"]))
    expect((await api.call("GET", `/v1/activities/${long.id}`)).text).toBe(JSON.stringify(long))
    const short = await activity({ type: "call", subject: "Short", minutes: 5, contact_ids: [ada.id] })
    expect(short.minutes).toBe(5)
    expect(Object.keys(short)).toEqual(keysOf(["minutes"]))
    refused(await api.call("POST", "/v1/activities", { body: { type: "call", subject: "x", outcome: "maybe", contact_ids: [ada.id] } }), [
      "outcome"
    ])
    refused(await api.call("POST", "/v1/activities", { body: { type: "call", subject: "x", tier: "gold", contact_ids: [ada.id] } }), [
      "tier"
    ])
    refused(await api.call("POST", "/v1/custom-fields", { body: { object: "activity", key: "done", label: "Done", type: "boolean" } }), [
      "key"
    ])

    expect(await ids(`filter=${encodeURIComponent(JSON.stringify({ outcome: "won" }))}`)).toEqual([long.id])
    expect(await ids(`filter=${encodeURIComponent(JSON.stringify({ minutes: { $lt: 10 } }))}`)).toEqual([short.id])
    expect(await ids("sort=-minutes")).toEqual([long.id, short.id])
    const cleared = await ok("PATCH", `/v1/activities/${long.id}`, { outcome: null, minutes: 50 })
    expect(cleared).toMatchObject({ outcome: null, minutes: 50 })
    expect(Object.keys(cleared)).toEqual(keysOf(["minutes", "outcome"]))
  })

  it("announces its events to webhooks and the change feed with the record as GET shows it", async () => {
    const { activity, api, contact, ok } = setUp()
    const receiver = await receiverForTest()
    await register(api, receiver.url, {
      events: ["activity.created", "activity.updated", "activity.deleted", "activity.restored"]
    })
    const ada = await contact()
    const task = await activity({ type: "task", subject: "Ship it", due_at: "2026-08-01T09:00:00Z", contact_ids: [ada.id] })
    const done = await ok("PATCH", `/v1/activities/${task.id}`, { done: true, body: "shipped" })
    await ok("DELETE", `/v1/activities/${task.id}`)
    const restored = await ok("POST", `/v1/activities/${task.id}/restore`)
    await receiver.waitFor((received) => received.length >= 4, "four activity deliveries")
    // Deliveries of different events may arrive in any order; the log's order is their sequence.
    const sent = receiver.received.map((r) => r.json as Json).sort((a, b) => a["sequence"] - b["sequence"])
    expect(sent.map((p) => p["type"])).toEqual(["activity.created", "activity.updated", "activity.deleted", "activity.restored"])
    expect(sent[0]!["data"]).toEqual({ activity: task })
    expect(sent[1]!["data"]).toEqual({ activity: done, changed_fields: ["body", "done_at"] })
    expect(sent[2]!["data"]).toEqual({ id: task.id })
    expect(sent[3]!["data"]).toEqual({ activity: restored })
    // Byte for byte what GET answers, key order included.
    const got = await api.call("GET", `/v1/activities/${task.id}`)
    expect(JSON.stringify(sent[3]!["data"]["activity"])).toBe(got.text)
    for (const request of receiver.received) expect(request.headers["x-service-event"]).toBe(request.json["type"])

    const feed = await ok("GET", "/v1/events?types=activity.*")
    expect(feed.data).toEqual(sent)
    for (const request of receiver.received) {
      expect((await api.call("GET", `/v1/events/${request.json["id"]}`)).text).toBe(request.rawBody.toString("utf8"))
    }
    expect(receiver.received).toHaveLength(4)
  })

  it("is kept apart per workspace", async () => {
    const mine = setUp()
    const theirs = setUp()
    const ada = await mine.contact()
    const note = await mine.activity({ contact_ids: [ada.id] })
    expect((await theirs.api.call("GET", `/v1/activities/${note.id}`)).status).toBe(404)
    expect((await theirs.api.call("PATCH", `/v1/activities/${note.id}`, { body: { subject: "x" } })).status).toBe(404)
    expect((await theirs.api.call("DELETE", `/v1/activities/${note.id}`)).status).toBe(404)
    // Another workspace's contact is no contact here.
    refused(await theirs.api.call("POST", "/v1/activities", { body: { type: "note", subject: "x", contact_ids: [ada.id] } }), [
      "contact_ids[0]"
    ])
    expect((await theirs.ok("GET", "/v1/activities")).data).toEqual([])
  })
})
