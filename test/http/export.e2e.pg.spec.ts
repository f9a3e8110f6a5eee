import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Answer, errorOf, type Host, hostFor, KEY_A, STORAGES } from "./client.js"

// GET /v1/<records>/export (issue 34, item 2; API.md, "Export"): every live record of one state,
// as JSON lines or CSV, with the change feed cursor of that state; on both storages. The property:
// an export taken while 8 writers run, followed by the feed after its cursor, folds to exactly the
// records the API lists afterwards.

type Contact = Record<string, unknown> & { readonly id: string }

/** The export's body as raw text, and its headers. */
const exportOf = async (host: Host, path: string, accept?: string) => {
  const response = await fetch(`${host.url}${path}`, {
    headers: { authorization: `Bearer ${KEY_A}`, ...(accept === undefined ? {} : { accept }) }
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

const lines = (text: string): ReadonlyArray<Contact> =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Contact)

/** Every live contact, as the list pages show them. */
const listAll = async (host: Host): Promise<ReadonlyArray<Contact>> => {
  const all: Array<Contact> = []
  for (let cursor: string | null = null; ; ) {
    const page: Answer = await host.call("GET", `/v1/contacts?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(page.status, page.text).toBe(200)
    all.push(...page.body.data)
    cursor = page.body.next_cursor
    if (cursor === null) return all
  }
}

/** Every contact event after `cursor`, in feed order. */
const feedAfter = async (host: Host, cursor: string | null) => {
  const events: Array<{ type: string; data: Record<string, any> }> = []
  for (let after = cursor; ; ) {
    const page: Answer = await host.call(
      "GET",
      `/v1/events?limit=1000&types=contact.*${after === null ? "" : `&after=${encodeURIComponent(after)}`}`
    )
    expect(page.status, page.text).toBe(200)
    events.push(...page.body.data)
    if (page.body.data.length === 0) return events
    after = page.body.next_cursor
  }
}

for (const storage of STORAGES) {
  describe(`export on ${storage} storage`, () => {
    // The property's writers write as fast as the storage takes them: no rate limit here.
    const host = hostFor(storage, { rateLimit: 1_000_000, rateBurst: 1_000_000 })
    let runs = 0

    it("streams every live record its list shows, as JSON lines, with the feed cursor of its state", async () => {
      const made: Array<string> = []
      for (const email of ["x1@example.com", "x2@example.com", "x3@example.com"]) {
        const created = await host.call("POST", "/v1/contacts", { body: { email, first_name: "Ex" } })
        expect(created.status, created.text).toBe(201)
        made.push(created.body.id)
      }
      expect((await host.call("DELETE", `/v1/contacts/${made[1]}`)).status).toBe(204)
      const exported = await exportOf(host, "/v1/contacts/export")
      expect(exported.status, exported.text).toBe(200)
      expect(exported.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
      expect(lines(exported.text)).toEqual(await listAll(host))
      expect(lines(exported.text).map((c) => c.id)).not.toContain(made[1])
      // The feed after the export's cursor has nothing yet: the export holds every change so far.
      const cursor = exported.headers.get("dealstream-feed-cursor")
      expect(cursor).not.toBeNull()
      expect(await feedAfter(host, cursor)).toEqual([])
      // The list's filters apply; paging and order are the export's own.
      const filtered = await exportOf(host, `/v1/contacts/export?filter=${encodeURIComponent(JSON.stringify({ email: "x3@example.com" }))}`)
      expect(lines(filtered.text).map((c) => c.email)).toEqual(["x3@example.com"])
      const refused = await host.call("GET", "/v1/contacts/export?limit=10")
      expect(refused.status, refused.text).toBe(400)
      expect(errorOf(refused).details[0]!.path).toBe("limit")
    })

    it("writes CSV with Accept: text/csv: standard fields, then custom keys sorted; ids joined by ;, null empty", async () => {
      for (const key of ["zeta_score", "alpha_note"]) {
        const defined = await host.call("POST", "/v1/custom-fields", {
          body: { object: "company", key, label: key, type: key === "zeta_score" ? "number" : "text" }
        })
        expect(defined.status, defined.text).toBe(201)
      }
      const company = await host.call("POST", "/v1/companies", {
        body: { name: 'Acme, "the" company', domain: "acme-export.example", alpha_note: "line one\nline two", zeta_score: 7 }
      })
      expect(company.status, company.text).toBe(201)
      const exported = await exportOf(host, "/v1/companies/export", "text/csv")
      expect(exported.status, exported.text).toBe(200)
      expect(exported.headers.get("content-type")).toMatch(/^text\/csv/)
      const [header] = exported.text.split("\r\n")
      const columns = header!.split(",")
      expect(columns.slice(0, 2)).toEqual(["id", "name"])
      expect(columns.slice(-2)).toEqual(["alpha_note", "zeta_score"])
      const shown = (await host.call("GET", `/v1/companies/${company.body.id}`)).body
      const expected = columns.map((column) => {
        const value = shown[column]
        const text = value === null || value === undefined ? "" : Array.isArray(value) ? value.join(";") : String(value)
        return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
      })
      expect(exported.text).toContain(`\r\n${expected.join(",")}\r\n`)
    })

    it("taken while 8 writers run, then followed by the feed from its cursor, folds to what the API lists after", async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
          // fast-check may draw a seed twice (and shrinking reruns one): each run names its own emails.
          const run = ++runs
          let stop = false
          let acknowledged = 0
          let failed = false
          const writer = async (w: number) => {
            const mine: Array<string> = []
            for (let k = 0; !stop && k < 200; k++) {
              const roll = (seed + w * 31 + k * 17) % 10
              if (roll < 5 || mine.length === 0) {
                const created = await host.call("POST", "/v1/contacts", { body: { email: `p${run}-${seed}-${w}-${k}@example.com` } })
                expect(created.status, created.text).toBe(201)
                mine.push(created.body.id)
              } else if (roll < 8) {
                const id = mine[k % mine.length]!
                const updated = await host.call("PATCH", `/v1/contacts/${id}`, { body: { first_name: `n${seed}-${k}` } })
                expect([200, 404]).toContain(updated.status)
              } else {
                const id = mine[k % mine.length]!
                const deleted = await host.call("DELETE", `/v1/contacts/${id}`)
                expect([204, 404]).toContain(deleted.status)
              }
              acknowledged++
            }
          }
          // Waits for n more acknowledged writes, or for every writer to have ended (a failed one
          // ends the wait too, and Promise.all below reports why).
          let running = 8
          const writes = (n: number) =>
            new Promise<void>((resolve) => {
              const target = acknowledged + n
              const check = () => (acknowledged >= target || failed || running === 0 ? resolve() : setImmediate(check))
              check()
            })
          const writers = Array.from({ length: 8 }, (_, w) =>
            writer(w).then(
              () => {
                running--
              },
              (error: unknown) => {
                failed = true
                running--
                throw error
              }
            )
          )
          const written = Promise.all(writers)
          written.catch(() => undefined) // handled: awaited below, once the export is taken
          // The export comes while the writers write (some before it, some during, some after).
          await writes(16)
          const exported = await exportOf(host, "/v1/contacts/export")
          await writes(16)
          stop = true
          await written
          expect(exported.status, exported.text).toBe(200)
          const held = new Map(lines(exported.text).map((c) => [c.id, c]))
          const later = await feedAfter(host, exported.headers.get("dealstream-feed-cursor"))
          expect(later.length).toBeGreaterThan(0)
          // None of the later changes is in the export: a record's first change after the cursor
          // finds the export holding it as it was before (or not at all, for a creation).
          const seen = new Set<string>()
          for (const event of later) {
            const id: string = event.type === "contact.deleted" ? event.data["id"] : event.data["contact"].id
            if (seen.has(id)) continue
            seen.add(id)
            if (event.type === "contact.created") expect(held.has(id), `${id} created after the cursor`).toBe(false)
            else if (event.type === "contact.updated")
              expect(held.get(id), `${id} updated after the cursor`).not.toEqual(event.data["contact"])
          }
          // And with them, the export makes what the API lists now: created/updated/restored put
          // the record shown, deleted takes it out.
          const folded = new Map(held)
          for (const event of later) {
            if (event.type === "contact.deleted") folded.delete(event.data["id"])
            else folded.set(event.data["contact"].id, event.data["contact"])
          }
          const listed = await listAll(host)
          expect(new Map(listed.map((c) => [c.id, c]))).toEqual(folded)
        }),
        { numRuns: 4 }
      )
    })

    it("reads past its own pages of 1,000: 2,500 more contacts come whole, in the list's order", async () => {
      for (let chunk = 0; chunk < 25; chunk++) {
        const body = Array.from({ length: 100 }, (_, k) => ({ email: `many-${chunk}-${k}@example.com` }))
        const created = await host.call("POST", "/v1/contacts/batch", {
          body: { operations: body.map((data) => ({ op: "create", data })) }
        })
        expect(created.status, created.text).toBe(200)
        expect(created.body.results.filter((r: { status: number }) => r.status !== 201)).toEqual([])
      }
      const exported = await exportOf(host, "/v1/contacts/export")
      expect(exported.status, exported.text).toBe(200)
      const listed = await listAll(host)
      expect(listed.length).toBeGreaterThan(2_500)
      expect(lines(exported.text)).toEqual(listed)
      // Its larger pages are the export's alone: a list still takes at most 100.
      expect((await host.call("GET", "/v1/contacts?limit=1000")).status).toBe(400)
    })
  })
}
