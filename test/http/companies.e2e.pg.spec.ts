import { DeliveryQueue, type DeliveryQueueService, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { engineOver } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"
import { as, receiverForTest, register } from "../webhooks/support.js"
import { eventually } from "../webhooks/receiver.js"
import { type Answer, errorOf, hostFor, KEY_B, STORAGES } from "./client.js"

/** A company's keys in the one order the API shows them: field table, custom keys, timestamps, derived. */
const COMPANY_KEYS = ["id", "name", "domain", "industry", "size", "owner_id", "created_at", "updated_at", "contact_ids", "deal_ids"]

/**
 * /v1/companies through a real host over real sockets, on each storage: CRUD, the unique live
 * domain, custom fields, search, filter and sort, the trash, history, concurrency headers,
 * webhooks and the change feed, batches.
 */
describe.each(STORAGES)("companies on %s storage", { timeout: 60_000 }, (storage) => {
  const host = hostFor(storage, { webhooks: { allowInsecure: true, retrySchedule: [200, 400, 800], timeoutMillis: 3_000 } })
  let n = 0
  /** A domain no other test uses. */
  const domain = (name: string) => `${name}-${Date.now().toString(36)}${n++}.example.com`

  const ok = async (method: string, path: string, body?: unknown, status?: number) => {
    const answer = await host.call(method, path, body === undefined ? {} : { body })
    if (status === undefined) expect(answer.status, answer.text).toBeLessThan(300)
    else expect(answer.status, answer.text).toBe(status)
    return answer.body
  }
  const refused = (answer: Answer, status: number, code: string) => {
    expect(answer.status, answer.text).toBe(status)
    const error = errorOf(answer)
    expect(error.code).toBe(code)
    return error
  }
  const feedCursor = async () => (await ok("GET", "/v1/events?limit=1000&types=company.*")).next_cursor as string
  const companyEventsSince = async (cursor: string) =>
    (await ok("GET", `/v1/events?limit=1000&types=company.*&after=${encodeURIComponent(cursor)}`)).data as Array<Record<string, any>>

  it("creates with 201, Location and ETag, reads, patches with If-Match, deletes, lists in the trash and restores", async () => {
    const given = domain("crud")
    const created = await host.call("POST", "/v1/companies", {
      body: { name: "  Crud Corp ", domain: `  ${given.toUpperCase()} `, size: 12 }
    })
    expect(created.status, created.text).toBe(201)
    const company = created.body
    expect(company.id).toMatch(/^comp_/)
    expect(created.headers.get("location")).toBe(`/v1/companies/${company.id}`)
    expect(created.headers.get("etag")).toBe('"1"')
    expect(Object.keys(company)).toEqual(COMPANY_KEYS)
    expect(company).toMatchObject({
      name: "Crud Corp",
      domain: given,
      industry: null,
      size: 12,
      owner_id: null,
      contact_ids: [],
      deal_ids: []
    })
    expect(company.updated_at).toBe(company.created_at)

    const read = await host.call("GET", `/v1/companies/${company.id}`)
    expect(read.status).toBe(200)
    expect(read.headers.get("etag")).toBe('"1"')
    expect(read.text).toBe(created.text)

    const patched = await host.call("PATCH", `/v1/companies/${company.id}`, {
      body: { industry: "Rockets", size: 0 },
      headers: { "if-match": '"1"' }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.headers.get("etag")).toBe('"2"')
    expect(patched.body).toMatchObject({ name: "Crud Corp", domain: given, industry: "Rockets", size: 0 })
    expect(await ok("GET", `/v1/companies/${company.id}`)).toEqual(patched.body)

    const stale = await host.call("PATCH", `/v1/companies/${company.id}`, { body: { name: "Stale" }, headers: { "if-match": '"1"' } })
    refused(stale, 412, "precondition_failed")
    const staleDelete = await host.call("DELETE", `/v1/companies/${company.id}`, { headers: { "if-match": '"1"' } })
    refused(staleDelete, 412, "precondition_failed")
    const afterStale = await host.call("GET", `/v1/companies/${company.id}`)
    expect(afterStale.headers.get("etag")).toBe('"2"')
    expect(afterStale.body).toEqual(patched.body)

    // A patch that changes nothing is answered with the company as it is, and records nothing.
    const same = await host.call("PATCH", `/v1/companies/${company.id}`, { body: { size: 0 } })
    expect(same.status).toBe(200)
    expect(same.headers.get("etag")).toBe('"2"')
    expect(same.body).toEqual(patched.body)

    const deleted = await host.call("DELETE", `/v1/companies/${company.id}`, { headers: { "if-match": '"2"' } })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")
    refused(await host.call("GET", `/v1/companies/${company.id}`), 404, "not_found")
    refused(await host.call("PATCH", `/v1/companies/${company.id}`, { body: { name: "Ghost" } }), 404, "not_found")
    const listed = await ok("GET", `/v1/companies?search=${encodeURIComponent(given)}`)
    expect(listed.data).toEqual([])

    const trash = await ok("GET", "/v1/trash?type=company&limit=100")
    const item = trash.data.find((i: { id: string }) => i.id === company.id)
    expect(item).toEqual({
      type: "company",
      id: company.id,
      deleted_at: expect.stringMatching(/Z$/),
      purge_at: new Date(Date.parse(item.deleted_at) + 30 * 86_400_000).toISOString(),
      record: patched.body
    })

    const restored = await host.call("POST", `/v1/companies/${company.id}/restore`)
    expect(restored.status, restored.text).toBe(200)
    expect(restored.headers.get("etag")).toBe('"4"')
    expect(restored.body).toEqual(patched.body)
    expect(await ok("GET", `/v1/companies/${company.id}`)).toEqual(patched.body)
    expect((await ok("GET", "/v1/trash?type=company&limit=100")).data.map((i: { id: string }) => i.id)).not.toContain(company.id)
    // Restoring a live company is 404, like restoring one that never was.
    refused(await host.call("POST", `/v1/companies/${company.id}/restore`), 404, "not_found")

    const history = await ok("GET", `/v1/companies/${company.id}/history`)
    expect(history.next_cursor).toBeNull()
    expect(history.data.map((e: any) => e.type)).toEqual(["company.created", "company.updated", "company.deleted", "company.restored"])
    expect(history.data[0].changes).toEqual([
      { field: "id", from: null, to: company.id },
      { field: "name", from: null, to: "Crud Corp" },
      { field: "domain", from: null, to: given },
      { field: "size", from: null, to: 12 }
    ])
    expect(history.data[1].changes).toEqual([
      { field: "industry", from: null, to: "Rockets" },
      { field: "size", from: 12, to: 0 }
    ])
    expect(history.data[2].changes).toEqual([])
    const firstPage = await ok("GET", `/v1/companies/${company.id}/history?limit=3`)
    const rest = await ok("GET", `/v1/companies/${company.id}/history?limit=3&cursor=${encodeURIComponent(firstPage.next_cursor)}`)
    expect([...firstPage.data, ...rest.data]).toEqual(history.data)
  })

  it("keeps a domain to one live company, case-insensitively; a delete frees it and a restore finding it taken is 409", async () => {
    const shared = domain("unique")
    const first = await ok("POST", "/v1/companies", { name: "First", domain: shared }, 201)

    for (const spelling of [shared, shared.toUpperCase(), ` ${shared} `]) {
      const error = refused(await host.call("POST", "/v1/companies", { body: { name: "Second", domain: spelling } }), 409, "conflict")
      expect(error.details).toEqual([{ path: "domain", message: expect.stringContaining(first.id), id: first.id }])
    }
    const other = await ok("POST", "/v1/companies", { name: "Other", domain: domain("other") }, 201)
    const taking = refused(
      await host.call("PATCH", `/v1/companies/${other.id}`, { body: { domain: shared.toUpperCase() } }),
      409,
      "conflict"
    )
    expect(taking.details[0]).toMatchObject({ path: "domain", id: first.id })
    expect(await ok("GET", `/v1/companies/${other.id}`)).toEqual(other)
    // Companies without a domain never clash.
    await ok("POST", "/v1/companies", { name: "No domain one" }, 201)
    await ok("POST", "/v1/companies", { name: "No domain two", domain: null }, 201)

    await ok("DELETE", `/v1/companies/${first.id}`, undefined, 204)
    const second = await ok("POST", "/v1/companies", { name: "Second", domain: shared.toUpperCase() }, 201)
    expect(second.domain).toBe(shared)

    const restore = refused(await host.call("POST", `/v1/companies/${first.id}/restore`), 409, "conflict")
    expect(restore.details).toEqual([{ path: "domain", message: expect.stringContaining(second.id), id: second.id }])
    refused(await host.call("GET", `/v1/companies/${first.id}`), 404, "not_found")
    expect((await ok("GET", "/v1/trash?type=company&limit=100")).data.map((i: { id: string }) => i.id)).toContain(first.id)

    // Once the holder lets the domain go, the first comes back with it.
    await ok("PATCH", `/v1/companies/${second.id}`, { domain: null })
    const back = await ok("POST", `/v1/companies/${first.id}/restore`)
    expect(back).toEqual(first)
  })

  it("refuses every invalid body with 400 in the error shape and changes nothing", async () => {
    const company = await ok("POST", "/v1/companies", { name: "Valid", domain: domain("valid"), size: 5 }, 201)
    const since = await feedCursor()
    const creates: Array<[unknown, string]> = [
      [{ name: "Typo", sise: 3 }, "sise"],
      [{ domain: domain("nameless") }, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: 7 }, "name"],
      [{ name: "Bad domain", domain: "not a domain" }, "domain"],
      [{ name: "Bad domain", domain: "localhost" }, "domain"],
      [{ name: "Bad domain", domain: "https://acme.com" }, "domain"],
      [{ name: "Bad domain", domain: "acme.com/about" }, "domain"],
      [{ name: "Bad domain", domain: 42 }, "domain"],
      [{ name: "Negative", size: -1 }, "size"],
      [{ name: "Fraction", size: 1.5 }, "size"],
      [{ name: "Text size", size: "12" }, "size"],
      [{ name: "Computed", contact_ids: [] }, "contact_ids"],
      [{ name: "Own id", id: "comp_mine" }, "id"]
    ]
    for (const [body, path] of creates) {
      const error = refused(await host.call("POST", "/v1/companies", { body }), 400, "validation_error")
      expect(
        error.details.map((d) => d.path),
        JSON.stringify(body)
      ).toContain(path)
    }
    refused(await host.call("POST", "/v1/companies", { body: [1, 2] }), 400, "validation_error")
    const patches: Array<[unknown, string]> = [
      [{ size: -3 }, "size"],
      [{ size: 2.25 }, "size"],
      [{ domain: "no spaces.com" }, "domain"],
      [{ name: null }, "name"],
      [{ tier_that_is_not_defined: "x" }, "tier_that_is_not_defined"]
    ]
    for (const [body, path] of patches) {
      const error = refused(await host.call("PATCH", `/v1/companies/${company.id}`, { body }), 400, "validation_error")
      expect(
        error.details.map((d) => d.path),
        JSON.stringify(body)
      ).toContain(path)
    }
    const expand = refused(await host.call("GET", `/v1/companies/${company.id}?expand=contacts,owners`), 400, "validation_error")
    expect(expand.details).toEqual([{ path: "expand", message: expect.stringContaining("owners") }])

    const after = await host.call("GET", `/v1/companies/${company.id}`)
    expect(after.headers.get("etag")).toBe('"1"')
    expect(after.body).toEqual(company)
    expect(await companyEventsSince(since)).toEqual([])
  })

  it("answers 404 for an unknown id, another workspace's company and an id of another kind", async () => {
    const company = await ok("POST", "/v1/companies", { name: "Mine", domain: domain("mine") }, 201)
    // A contact's id names a stream, but not a company's.
    const contact = await ok("POST", "/v1/contacts", { email: `${domain("person")}@example.com` }, 201)
    for (const id of ["comp_00000000000000000000000000", contact.id]) {
      for (const [method, path, body] of [
        ["GET", `/v1/companies/${id}`, undefined],
        ["PATCH", `/v1/companies/${id}`, { name: "X" }],
        ["DELETE", `/v1/companies/${id}`, undefined],
        ["POST", `/v1/companies/${id}/restore`, undefined],
        ["GET", `/v1/companies/${id}/history`, undefined]
      ] as const) {
        refused(await host.call(method, path, body === undefined ? {} : { body }), 404, "not_found")
      }
    }
    refused(await host.call("GET", `/v1/companies/${company.id}`, { key: KEY_B }), 404, "not_found")
    refused(await host.call("PATCH", `/v1/companies/${company.id}`, { key: KEY_B, body: { name: "Theirs" } }), 404, "not_found")
    refused(await host.call("DELETE", `/v1/companies/${company.id}`, { key: KEY_B }), 404, "not_found")
    expect(await ok("GET", `/v1/companies/${company.id}`)).toEqual(company)
  })

  it("replays a create under its Idempotency-Key and refuses the key with another body", async () => {
    const body = { name: "Once", domain: domain("once") }
    const key = `company-once-${Date.now()}`
    const first = await host.call("POST", "/v1/companies", { body, headers: { "idempotency-key": key } })
    expect(first.status, first.text).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const again = await host.call("POST", "/v1/companies", { body, headers: { "idempotency-key": key } })
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
    expect(again.headers.get("location")).toBe(`/v1/companies/${first.body.id}`)
    const other = await host.call("POST", "/v1/companies", { body: { ...body, name: "Twice" }, headers: { "idempotency-key": key } })
    refused(other, 409, "idempotency_conflict")
    expect((await ok("GET", `/v1/companies?search=${encodeURIComponent(body.domain)}`)).data.map((c: any) => c.id)).toEqual([first.body.id])
  })

  it("takes custom fields of object company: set, typed, filtered, sorted and cleared; a contact's field is not a company's", async () => {
    const key = `tier_${Date.now().toString(36)}`
    const rank = `rank_${Date.now().toString(36)}`
    await ok("POST", "/v1/custom-fields", { object: "company", key, label: "Tier", type: "enum", options: ["gold", "silver"] }, 201)
    await ok("POST", "/v1/custom-fields", { object: "company", key: rank, label: "Rank", type: "number" }, 201)
    const contactOnly = `hobby_${Date.now().toString(36)}`
    await ok("POST", "/v1/custom-fields", { object: "contact", key: contactOnly, label: "Hobby", type: "text" }, 201)
    expect((await ok("GET", "/v1/custom-fields?object=company")).data.map((d: any) => d.key)).toEqual(expect.arrayContaining([key, rank]))

    const gold = await ok("POST", "/v1/companies", { name: "Gold Co", domain: domain("gold"), [key]: "gold", [rank]: 2 }, 201)
    const silver = await ok("POST", "/v1/companies", { name: "Silver Co", domain: domain("silver"), [key]: "silver", [rank]: 1 }, 201)
    expect(Object.keys(gold)).toEqual([...COMPANY_KEYS.slice(0, 6), ...[key, rank].sort(), ...COMPANY_KEYS.slice(6)])
    expect(gold).toMatchObject({ [key]: "gold", [rank]: 2 })

    const wrongOption = refused(
      await host.call("POST", "/v1/companies", { body: { name: "Bronze", [key]: "bronze" } }),
      400,
      "validation_error"
    )
    expect(wrongOption.details[0]?.path).toBe(key)
    const wrongType = refused(
      await host.call("POST", "/v1/companies", { body: { name: "Bronze", [rank]: "first" } }),
      400,
      "validation_error"
    )
    expect(wrongType.details[0]?.path).toBe(rank)
    const foreign = refused(
      await host.call("POST", "/v1/companies", { body: { name: "Hobbyist", [contactOnly]: "chess" } }),
      400,
      "validation_error"
    )
    expect(foreign.details[0]?.path).toBe(contactOnly)

    const filter = encodeURIComponent(JSON.stringify({ [key]: { $in: ["gold", "silver"] } }))
    const byRank = await ok("GET", `/v1/companies?filter=${filter}&sort=${rank}`)
    expect(byRank.data.map((c: any) => c.id)).toEqual([silver.id, gold.id])
    const byRankDown = await ok("GET", `/v1/companies?filter=${filter}&sort=-${rank}`)
    expect(byRankDown.data.map((c: any) => c.id)).toEqual([gold.id, silver.id])

    // Text custom fields are searched like name and domain.
    const motto = `motto_${Date.now().toString(36)}`
    await ok("POST", "/v1/custom-fields", { object: "company", key: motto, label: "Motto", type: "text" }, 201)
    const word = `zyx${Date.now().toString(36)}`
    await ok("PATCH", `/v1/companies/${silver.id}`, { [motto]: `always ${word} first` })
    expect((await ok("GET", `/v1/companies?search=${word.slice(0, -2)}`)).data.map((c: any) => c.id)).toEqual([silver.id])

    const cleared = await ok("PATCH", `/v1/companies/${gold.id}`, { [key]: null })
    expect(cleared[key]).toBeNull()
    const onlyGold = encodeURIComponent(JSON.stringify({ [key]: "gold" }))
    expect((await ok("GET", `/v1/companies?filter=${onlyGold}`)).data).toEqual([])
  })

  describe("lists on a store of their own", () => {
    const own = hostFor(storage)
    const call = (method: string, path: string, body?: unknown) => own.call(method, path, body === undefined ? {} : { body })
    const ids = async (query: string) => {
      const answer = await call("GET", `/v1/companies${query}`)
      expect(answer.status, answer.text).toBe(200)
      return answer.body.data.map((c: { name: string }) => c.name) as Array<string>
    }
    /** Every page of a listing, `limit` at a time. */
    const walk = async (query: string, limit: number) => {
      const names: Array<string> = []
      let cursor: string | null = null
      do {
        const page: Answer = await call(
          "GET",
          `/v1/companies?limit=${limit}${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
        )
        expect(page.status, page.text).toBe(200)
        expect(page.body.data.length).toBeLessThanOrEqual(limit)
        names.push(...page.body.data.map((c: { name: string }) => c.name))
        cursor = page.body.next_cursor
      } while (cursor !== null)
      return names
    }
    const sleepPast = async (at: string) => {
      while (Date.now() <= Date.parse(at)) await new Promise((resolve) => setTimeout(resolve, 2))
    }

    it("searches by name and domain words, filters, and sorts by each sort field both ways, page by page", async () => {
      const made: Array<Record<string, any>> = []
      for (const body of [
        { name: "Globex Corporation", domain: "globex.io", industry: "energy", size: 500 },
        { name: "Acme Rockets", domain: "acme-rockets.com", industry: "aerospace", size: 40 },
        { name: "Initech", industry: "software", size: 12 },
        { name: "Umbrella Health", domain: "umbrella.co.uk", industry: "health", size: 0 },
        { name: "Blue Sun", domain: "bluesun.space" }
      ]) {
        const answer = await call("POST", "/v1/companies", body)
        expect(answer.status, answer.text).toBe(201)
        made.push(answer.body)
        await sleepPast(answer.body.created_at)
      }
      const created = made.map((c) => c.name)

      expect(await ids("?search=glob")).toEqual(["Globex Corporation"])
      expect(await ids("?search=CORP")).toEqual(["Globex Corporation"])
      // Domains split into words on dots and hyphens, and count as one whole word too.
      expect(await ids("?search=rockets")).toEqual(["Acme Rockets"])
      expect(await ids(`?search=${encodeURIComponent("acme-rockets.com")}`)).toEqual(["Acme Rockets"])
      expect(await ids("?search=uk")).toEqual(["Umbrella Health"])
      expect(await ids("?search=io")).toEqual(["Globex Corporation"])
      expect(await ids(`?search=${encodeURIComponent("umbrella health")}`)).toEqual(["Umbrella Health"])
      expect(await ids(`?search=${encodeURIComponent("umbrella globex")}`)).toEqual([])
      // Industry is not searched.
      expect(await ids("?search=aerospace")).toEqual([])

      const filtered = (filter: unknown, extra = "") => ids(`?filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`)
      expect(await filtered({ industry: "software" })).toEqual(["Initech"])
      expect(await filtered({ size: { $gte: 40 } }, "&sort=-name")).toEqual(["Globex Corporation", "Acme Rockets"])
      expect(await filtered({ domain: { $exists: false } })).toEqual(["Initech"])
      expect(await filtered({ domain: { $starts_with: "UMB" } })).toEqual(["Umbrella Health"])
      expect(await filtered({ $or: [{ size: 0 }, { name: { $contains: "sun" } }] })).toEqual(["Umbrella Health", "Blue Sun"])

      // The default order is creation.
      expect(await ids("")).toEqual(created)
      const byName = [...created].sort()
      expect(await walk("&sort=name", 2)).toEqual(byName)
      expect(await walk("&sort=-name", 2)).toEqual([...byName].reverse())
      // Absent values last ascending, first descending.
      const byDomain = ["Acme Rockets", "Blue Sun", "Globex Corporation", "Umbrella Health", "Initech"]
      expect(await walk("&sort=domain", 2)).toEqual(byDomain)
      expect(await walk("&sort=-domain", 3)).toEqual([...byDomain].reverse())
      expect(await walk("&sort=created_at", 2)).toEqual(created)
      expect(await walk("&sort=-created_at", 4)).toEqual([...created].reverse())

      const touched = await call("PATCH", `/v1/companies/${made[1]!.id}`, { industry: "rockets" })
      expect(touched.status).toBe(200)
      const byUpdate = [...created.filter((name) => name !== "Acme Rockets"), "Acme Rockets"]
      expect(await walk("&sort=updated_at", 2)).toEqual(byUpdate)
      expect(await walk("&sort=-updated_at", 2)).toEqual([...byUpdate].reverse())

      for (const [query, path] of [
        ["?sort=industry", "sort"],
        ["?sort=-size", "sort"],
        ["?sort=colour", "sort"],
        ["?limit=0", "limit"],
        ["?cursor=nope", "cursor"],
        ["?filter=%7B%22colour%22%3A1%7D", "filter.colour"],
        ["?colour=red", "colour"]
      ]) {
        const answer = await call("GET", `/v1/companies${query}`)
        expect(answer.status, query).toBe(400)
        expect(errorOf(answer).details[0]?.path, query).toBe(path)
      }
    })
  })

  it("announces created, updated, deleted and restored to a webhook and the change feed, with the company as GET shows it", async () => {
    const receiver = await receiverForTest()
    // Workspace B: no other test of this host writes there, so the webhook sees only these events.
    const api = as(host, { id: "ws_b", key: KEY_B })
    await register(api, `${receiver.url}/companies`, {
      events: ["company.created", "company.updated", "company.deleted", "company.restored"]
    })
    const start = (await api.call("GET", "/v1/events?limit=1000&types=company.*")).body.next_cursor as string

    const created = (await api.call("POST", "/v1/companies", { body: { name: "Hooked", domain: domain("hooked") } })).body
    const updated = (await api.call("PATCH", `/v1/companies/${created.id}`, { body: { size: 7, industry: "fishing" } })).body
    expect((await api.call("DELETE", `/v1/companies/${created.id}`)).status).toBe(204)
    const restored = (await api.call("POST", `/v1/companies/${created.id}/restore`)).body
    const shown = (await api.call("GET", `/v1/companies/${created.id}`)).body
    expect(restored).toEqual(shown)

    await receiver.waitFor((received) => received.length >= 4, "four company deliveries")
    const deliveries = [...receiver.received].sort((a, b) => a.json.sequence - b.json.sequence)
    expect(deliveries.map((r) => r.headers["x-service-event"])).toEqual([
      "company.created",
      "company.updated",
      "company.deleted",
      "company.restored"
    ])
    expect(deliveries.map((r) => r.json.data)).toEqual([
      { company: created },
      { company: updated, changed_fields: ["size", "industry"] },
      { id: created.id },
      { company: shown }
    ])
    for (const delivery of deliveries) expect(delivery.json.workspace_id).toBe("ws_b")
    expect(Object.keys(deliveries[0]!.json.data.company)).toEqual(COMPANY_KEYS)

    const feed = await eventually(async () => {
      const page = await api.call("GET", `/v1/events?limit=1000&types=company.*&after=${encodeURIComponent(start)}`)
      return page.body.data.length >= 4 ? (page.body.data as Array<Record<string, any>>) : undefined
    }, "four company events in the feed")
    expect(feed.map((e) => e.id)).toEqual(deliveries.map((r) => r.json.id))
    expect(feed).toEqual(deliveries.map((r) => r.json))
  })

  describe("batch", () => {
    const batch = async (body: unknown, headers: Record<string, string> = {}) => {
      const answer = await host.call("POST", "/v1/companies/batch", { body, headers })
      expect(answer.status, answer.text).toBe(200)
      return answer.body.results as Array<Record<string, any>>
    }

    it("creates, updates and upserts by domain, each answered as its single request would be", async () => {
      const existing = await ok("POST", "/v1/companies", { name: "Existing", domain: domain("existing") }, 201)
      const matched = await ok("POST", "/v1/companies", { name: "Matched", domain: domain("matched") }, 201)
      const taken = await ok("POST", "/v1/companies", { name: "Taken", domain: domain("taken") }, 201)
      const fresh = domain("fresh")
      const since = await feedCursor()

      const results = await batch({
        operations: [
          { op: "create", data: { name: "Made", domain: domain("made"), size: 3 } },
          { op: "create", data: { name: "Broken", size: -1 } },
          { op: "update", id: existing.id, data: { industry: "steel" } },
          { op: "update", id: "comp_00000000000000000000000000", data: { industry: "air" } },
          { op: "upsert", match: { domain: matched.domain.toUpperCase() }, data: { size: 99 } },
          { op: "upsert", match: { domain: fresh }, data: { name: "Fresh" } },
          { op: "create", data: { name: "Clash", domain: taken.domain } }
        ]
      })
      expect(results.map((r) => [r.index, r.status])).toEqual([
        [0, 201],
        [1, 400],
        [2, 200],
        [3, 404],
        [4, 200],
        [5, 201],
        [6, 409]
      ])
      expect(results[0]!.data).toEqual(await ok("GET", `/v1/companies/${results[0]!.data.id}`))
      expect(results[2]!.data).toEqual(await ok("GET", `/v1/companies/${existing.id}`))
      expect(results[2]!.data.industry).toBe("steel")
      expect(results[4]!.data).toEqual({ ...(await ok("GET", `/v1/companies/${matched.id}`)), size: 99 })
      expect(results[4]!.data.id).toBe(matched.id)
      expect(results[5]!.data).toMatchObject({ name: "Fresh", domain: fresh })
      expect(results[5]!.data).toEqual(await ok("GET", `/v1/companies/${results[5]!.data.id}`))
      expect(results[1]!.error).toMatchObject({ code: "validation_error", details: [{ path: "operations[1].data.size" }] })
      expect(results[3]!.error.code).toBe("not_found")
      expect(results[6]!.error).toMatchObject({ code: "conflict", details: [{ path: "operations[6].data.domain", id: taken.id }] })
      expect((await companyEventsSince(since)).map((e) => e.type).sort()).toEqual([
        "company.created",
        "company.created",
        "company.updated",
        "company.updated"
      ])
    })

    it("applies an atomic batch all at once or nothing of it, and refuses a malformed or oversized one as a whole", async () => {
      const kept = await ok("POST", "/v1/companies", { name: "Kept", domain: domain("kept") }, 201)
      const since = await feedCursor()
      const refusedAll = await batch({
        atomic: true,
        operations: [
          { op: "create", data: { name: "Never", domain: domain("never") } },
          { op: "update", id: kept.id, data: { name: "Changed" } },
          { op: "upsert", match: { domain: domain("never.upsert") }, data: { name: "Never either" } },
          { op: "create", data: { name: "Bad", domain: "nope" } }
        ]
      })
      expect(refusedAll.map((r) => r.status)).toEqual([424, 424, 424, 400])
      expect(refusedAll[0]!.error).toMatchObject({ code: "failed_dependency", message: expect.stringContaining("operation 3") })
      expect(refusedAll[3]!.error.details[0].path).toBe("operations[3].data.domain")
      expect(await ok("GET", `/v1/companies/${kept.id}`)).toEqual(kept)
      expect(await companyEventsSince(since)).toEqual([])

      const together = await batch({
        atomic: true,
        operations: [
          { op: "upsert", match: { domain: kept.domain }, data: { name: "Changed" } },
          { op: "create", data: { name: "Together" } }
        ]
      })
      expect(together.map((r) => r.status)).toEqual([200, 201])
      expect((await ok("GET", `/v1/companies/${kept.id}`)).name).toBe("Changed")
      expect((await companyEventsSince(since)).map((e) => e.type)).toEqual(["company.updated", "company.created"])

      const after = await feedCursor()
      const tooMany = await host.call("POST", "/v1/companies/batch", {
        body: { operations: Array.from({ length: 101 }, (_, i) => ({ op: "create", data: { name: `Many ${i}` } })) }
      })
      refused(tooMany, 413, "payload_too_large")
      for (const [body, path] of [
        [{ operations: [] }, "operations"],
        [{ operations: [{ op: "upsert", match: { name: "Kept" }, data: {} }] }, "operations[0].match"],
        [{ operations: [{ op: "upsert", match: { domain: "a.io" }, data: { domain: "b.io" } }] }, "operations[0].data.domain"],
        [{ operations: [{ op: "update", data: {} }] }, "operations[0].id"]
      ] as const) {
        const error = refused(await host.call("POST", "/v1/companies/batch", { body }), 400, "validation_error")
        expect(
          error.details.map((d) => d.path),
          JSON.stringify(body)
        ).toContain(path)
      }
      expect(await companyEventsSince(after)).toEqual([])
    })

    it("replays a batch under one Idempotency-Key without applying it again", async () => {
      const body = {
        operations: [
          { op: "upsert", match: { domain: domain("idem") }, data: { name: "Idem" } },
          { op: "create", data: { name: "Idem two" } }
        ]
      }
      const key = `company-batch-${Date.now()}`
      const first = await host.call("POST", "/v1/companies/batch", { body, headers: { "idempotency-key": key } })
      expect(first.status, first.text).toBe(200)
      const since = await feedCursor()
      const again = await host.call("POST", "/v1/companies/batch", { body, headers: { "idempotency-key": key } })
      expect(again.status).toBe(200)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body).toEqual(first.body)
      expect(await companyEventsSince(since)).toEqual([])
      refused(
        await host.call("POST", "/v1/companies/batch", { body: { operations: [] }, headers: { "idempotency-key": key } }),
        409,
        "idempotency_conflict"
      )
    })
  })

  it("derives contact_ids and deal_ids from the live contacts and deals naming the company, and expands them as their GETs show them", async () => {
    const company = await ok("POST", "/v1/companies", { name: "Linked", domain: domain("linked") }, 201)
    const sister = await ok("POST", "/v1/companies", { name: "Sister", domain: domain("sister") }, 201)
    const email = (name: string) => `${name}.${domain("person")}`.replace(/\.example\.com$/, "@example.com")
    const primary = await ok("POST", "/v1/contacts", { email: email("primary"), company_id: company.id }, 201)
    const secondary = await ok("POST", "/v1/contacts", { email: email("secondary"), company_ids: [sister.id, company.id] }, 201)
    await ok("POST", "/v1/contacts", { email: email("elsewhere"), company_id: sister.id }, 201)
    const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
    const deal = await ok(
      "POST",
      "/v1/deals",
      { name: "Linked deal", pipeline_id: pipeline.id, company_id: company.id, contact_ids: [primary.id] },
      201
    )
    await ok("POST", "/v1/deals", { name: "Sister deal", pipeline_id: pipeline.id, company_id: sister.id }, 201)

    const read = async () => await ok("GET", `/v1/companies/${company.id}`)
    const expanded = async () => await ok("GET", `/v1/companies/${company.id}?expand=contacts,deals`)
    const linked = await read()
    expect(linked).toEqual({ ...company, contact_ids: [primary.id, secondary.id], deal_ids: [deal.id] })
    expect((await ok("GET", `/v1/companies/${sister.id}`)).contact_ids).toHaveLength(2)
    const listed = await ok("GET", `/v1/companies?search=${encodeURIComponent(company.domain)}`)
    expect(listed.data).toEqual([linked])
    // A write's answer (and so its webhook payload) carries them too.
    const renamed = await ok("PATCH", `/v1/companies/${company.id}`, { industry: "links" })
    expect(renamed).toMatchObject({ contact_ids: [primary.id, secondary.id], deal_ids: [deal.id] })

    const full = await expanded()
    expect(full.contacts).toEqual([await ok("GET", `/v1/contacts/${primary.id}`), await ok("GET", `/v1/contacts/${secondary.id}`)])
    expect(full.deals).toEqual([await ok("GET", `/v1/deals/${deal.id}`)])
    expect(full).not.toHaveProperty("contact_ids")
    expect(full).not.toHaveProperty("deal_ids")

    // A contact or deal in the trash leaves both, and comes back with its restore.
    await ok("DELETE", `/v1/contacts/${primary.id}`, undefined, 204)
    await ok("DELETE", `/v1/deals/${deal.id}`, undefined, 204)
    expect(await read()).toMatchObject({ contact_ids: [secondary.id], deal_ids: [] })
    expect(await expanded()).toMatchObject({ contacts: [await ok("GET", `/v1/contacts/${secondary.id}`)], deals: [] })
    await ok("POST", `/v1/contacts/${primary.id}/restore`)
    await ok("POST", `/v1/deals/${deal.id}/restore`)
    expect(await read()).toMatchObject({ contact_ids: [primary.id, secondary.id], deal_ids: [deal.id] })
    expect((await expanded()).contacts.map((c: { id: string }) => c.id)).toEqual([primary.id, secondary.id])
    expect((await expanded()).deals.map((d: { id: string }) => d.id)).toEqual([deal.id])

    // A contact that lets the company go leaves it; a deal moved to another company too.
    await ok("PATCH", `/v1/contacts/${secondary.id}`, { company_ids: [sister.id] })
    await ok("PATCH", `/v1/deals/${deal.id}`, { company_id: sister.id })
    expect(await read()).toMatchObject({ contact_ids: [primary.id], deal_ids: [] })
    expect((await ok("GET", `/v1/companies/${sister.id}`)).deal_ids).toContain(deal.id)

    // The company in the trash shows who still names it; restored, it is as it was.
    const before = await read()
    await ok("DELETE", `/v1/companies/${company.id}`, undefined, 204)
    const trashed = (await ok("GET", "/v1/trash?type=company&limit=100")).data.find((i: { id: string }) => i.id === company.id)
    expect(trashed.record).toEqual(before)
    expect(await ok("POST", `/v1/companies/${company.id}/restore`)).toEqual(before)
  })

  it("adds its live activities, newest first, with expand=activities, and takes the expansions in any combination", async () => {
    const company = await ok("POST", "/v1/companies", { name: "Expanded", domain: domain("expanded") }, 201)
    const older = await ok("POST", "/v1/activities", { type: "note", subject: "Met them", company_ids: [company.id] }, 201)
    while (Date.now() <= Date.parse(older.created_at)) await new Promise((resolve) => setTimeout(resolve, 2))
    const newer = await ok("POST", "/v1/activities", { type: "call", subject: "Called them", company_ids: [company.id] }, 201)
    const dropped = await ok("POST", "/v1/activities", { type: "note", subject: "Scrapped", company_ids: [company.id] }, 201)
    await ok("DELETE", `/v1/activities/${dropped.id}`, undefined, 204)

    const all = await ok("GET", `/v1/companies/${company.id}?expand=activities,deals,contacts`)
    const { contact_ids: _c, deal_ids: _d, ...fields } = company
    expect(all).toEqual({
      ...fields,
      contacts: [],
      deals: [],
      activities: [await ok("GET", `/v1/activities/${newer.id}`), await ok("GET", `/v1/activities/${older.id}`)]
    })
    expect(Object.keys(all)).toEqual([...COMPANY_KEYS.slice(0, 8), "contacts", "deals", "activities"])
    expect(Object.keys(await ok("GET", `/v1/companies/${company.id}?expand=deals`))).toEqual([...COMPANY_KEYS.slice(0, 9), "deals"])
    expect(await ok("GET", `/v1/companies/${company.id}?expand=`)).toEqual(company)
  })
})

const DAY = 86_400_000

/**
 * Past the 30-day window a deleted company is purged: its documents go, its earlier events keep
 * only their types, a company.purged tombstone follows, its domain is free, and restore and history
 * are 404. The host has no clock a test can move, so this runs on the engine, on engine time
 * (TestClock), over each storage.
 */
const purgeCompanies = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    const start = Date.parse("2026-06-01T00:00:00.000Z")
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue })
    const ctx = { workspaceId: `purge_${Date.now().toString(36)}`, requestId: null, actor: "test" }
    const idOf = (answer: { readonly data: Record<string, unknown> }) => answer.data["id"] as string
    const gone = idOf(yield* engine.companies.create(ctx, { name: "Vanishing Ltd", domain: "vanishing.example" }))
    yield* engine.companies.update(ctx, gone, { industry: "secretive trade" }, null)
    yield* engine.companies.delete(ctx, gone, null)
    yield* TestClock.adjust(20 * DAY)
    const recent = idOf(yield* engine.companies.create(ctx, { name: "Recent Ltd", domain: "recent.example" }))
    yield* engine.companies.delete(ctx, recent, null)

    // Thirty days after the delete to the millisecond it is still recoverable.
    yield* TestClock.adjust(10 * DAY)
    expect(yield* engine.purgeExpired).toBe(0)
    yield* TestClock.adjust(1)
    expect(yield* engine.purgeExpired).toBe(1)

    const afterPurge: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
      engine.companies.restore(ctx, gone),
      engine.companies.get(ctx, gone, null),
      engine.companies.history(ctx, gone, {})
    ]
    for (const refused of afterPurge) expect((yield* Effect.flip(refused))._tag).toBe("NotFound")
    expect((yield* engine.trash.list(ctx, { type: "company" })).data.map((item) => item["id"])).toEqual([recent])
    const stream = yield* storage.readStream(gone)
    expect(stream.map((event) => event.type)).toEqual(["company.created", "company.updated", "company.deleted", "company.purged"])
    const feed = (yield* engine.events.list(ctx, { types: "company.*", limit: "1000" })).data
    expect(feed.filter((event) => event["type"] === "company.purged").map((event) => event["data"])).toEqual([{ id: gone }])
    const text = JSON.stringify([stream, feed])
    for (const value of ["Vanishing", "vanishing.example", "secretive"])
      expect({ value, found: text.includes(value) }).toEqual({ value, found: false })

    // Its domain is free again; the company still in the window comes back.
    expect((yield* engine.companies.create(ctx, { name: "Vanishing again", domain: "VANISHING.example" })).data["domain"]).toBe(
      "vanishing.example"
    )
    expect((yield* engine.companies.restore(ctx, recent)).data["name"]).toBe("Recent Ltd")
    expect(yield* engine.purgeExpired).toBe(0)
  }).pipe(Effect.scoped)

describe("company purge after the recovery window", () => {
  effectIt.effect("memory storage", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgeCompanies(storage, queue))
  )

  effectIt.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL", () =>
      Effect.gen(function* () {
        yield* purgeCompanies(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
