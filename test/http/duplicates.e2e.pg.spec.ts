import { describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "./client.js"

// Finding duplicates (API.md, "Merge and duplicates"; issue 28, item 5) over a real host on each
// storage: every rule, pages that follow each other, records leaving their group when they are
// merged or deleted and coming back on restore, a change that moves a record between groups, and
// bad parameters refused with the error shape. Each test has its own workspace's worth of records:
// the host's one workspace is read whole, so tests in a file run one after another.

type Json = Record<string, any>

for (const storage of STORAGES) {
  describe(`duplicates on ${storage} storage`, () => {
    const host = hostFor(storage)

    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await host.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300)
      return answer.body
    }
    /** Every group, page by page, as `rule value [company] :: ids`. */
    const groups = async (records: string, limit: number): Promise<Array<string>> => {
      const all: Array<string> = []
      for (let cursor: string | null = null; ; ) {
        const page: Json = await ok("GET", `/v1/${records}/duplicates?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`)
        expect(page.data.length).toBeLessThanOrEqual(limit)
        all.push(
          ...page.data.map(
            (g: Json) => `${g.rule} ${g.value}${g.company_id === undefined ? "" : ` @${g.company_id}`} :: ${g.ids.join(",")}`
          )
        )
        if (page.next_cursor === null) return all
        cursor = page.next_cursor
      }
    }
    const sorted = (ids: ReadonlyArray<string>) => [...ids].sort().join(",")

    it("groups contacts by phone digits and by name at a common company, in pages, as merges, deletes and edits change them", async () => {
      const acme = (await ok("POST", "/v1/companies", { name: "Acme Dup", domain: "acme.dup.io" })).id
      const beta = (await ok("POST", "/v1/companies", { name: "Beta Dup", domain: "beta.dup.io" })).id
      const a = (
        await ok("POST", "/v1/contacts", {
          email: "a@dup.io",
          phone: "+1 (555) 010-2030",
          first_name: "Ada",
          last_name: "King",
          company_ids: [acme]
        })
      ).id
      const b = (
        await ok("POST", "/v1/contacts", {
          email: "b@dup.io",
          phone: "15550102030",
          first_name: " ada",
          last_name: "KING ",
          company_ids: [beta, acme]
        })
      ).id
      const c = (
        await ok("POST", "/v1/contacts", {
          email: "c@dup.io",
          phone: "555-0102",
          first_name: "Ada",
          last_name: "King",
          company_ids: [beta]
        })
      ).id
      const d = (await ok("POST", "/v1/contacts", { email: "d@dup.io", phone: "555 0102" })).id
      await ok("POST", "/v1/contacts", { email: "e@dup.io", phone: "12 34 5" })

      const expected = [
        `name_company ada king @${acme} :: ${sorted([a, b])}`,
        `name_company ada king @${beta} :: ${sorted([b, c])}`,
        `phone 15550102030 :: ${sorted([a, b])}`,
        `phone 5550102 :: ${sorted([c, d])}`
      ]
      const ordered = await groups("contacts", 1)
      expect([...ordered].sort()).toEqual(expected)
      // The order is (rule, key): the pages, whatever their size, list the same groups in it.
      expect(await groups("contacts", 3)).toEqual(ordered)
      expect(await groups("contacts", 100)).toEqual(ordered)

      // d's phone changes: it leaves the 7-digit group, which has one record left, and joins a's and b's.
      await ok("PATCH", `/v1/contacts/${d}`, { phone: "1-555-010-2030" })
      expect((await groups("contacts", 100)).filter((g) => g.startsWith("phone"))).toEqual([`phone 15550102030 :: ${sorted([a, b, d])}`])
      // b merged into a: b leaves every group, and a, taking b's companies, now shares Beta with c.
      await ok("POST", `/v1/contacts/${a}/merge`, { merge_ids: [b] })
      const atBeta = `name_company ada king @${beta} :: ${sorted([a, c])}`
      expect(await groups("contacts", 100)).toEqual([atBeta, `phone 15550102030 :: ${sorted([a, d])}`])
      // d deleted: it leaves its group, and comes back on restore.
      await ok("DELETE", `/v1/contacts/${d}`)
      expect(await groups("contacts", 100)).toEqual([atBeta])
      await ok("POST", `/v1/contacts/${d}/restore`)
      expect(await groups("contacts", 100)).toEqual([atBeta, `phone 15550102030 :: ${sorted([a, d])}`])
    })

    it("groups companies by domain without www. and by name, trimmed and lowercased", async () => {
      const before = await groups("companies", 100)
      const one = (await ok("POST", "/v1/companies", { name: "Gamma Works", domain: "gamma.io" })).id
      const two = (await ok("POST", "/v1/companies", { name: " gamma works", domain: "WWW.Gamma.io" })).id
      const three = (await ok("POST", "/v1/companies", { name: "GAMMA WORKS" })).id
      const added = (await groups("companies", 2)).filter((g) => !before.includes(g))
      expect(added).toEqual([`domain gamma.io :: ${sorted([one, two])}`, `name gamma works :: ${sorted([one, two, three])}`])
    })

    it("takes merged and deleted companies out of their groups, and pages companies", async () => {
      const before = await groups("companies", 100)
      const one = (await ok("POST", "/v1/companies", { name: "Delta Co", domain: "delta.io" })).id
      const two = (await ok("POST", "/v1/companies", { name: "DELTA CO ", domain: "www.delta.io" })).id
      const three = (await ok("POST", "/v1/companies", { name: "delta co", domain: "delta.co" })).id
      const four = (await ok("POST", "/v1/companies", { name: "Delta Co", domain: "www.delta.co" })).id
      const added = async (limit: number) => (await groups("companies", limit)).filter((g) => !before.includes(g))
      const all = [
        `domain delta.co :: ${sorted([three, four])}`,
        `domain delta.io :: ${sorted([one, two])}`,
        `name delta co :: ${sorted([one, two, three, four])}`
      ]
      expect(await added(1)).toEqual(all)
      expect(await added(2)).toEqual(all)
      // two merged into one: out of both its groups (the domain group, left with one, is gone).
      await ok("POST", `/v1/companies/${one}/merge`, { merge_ids: [two] })
      expect(await added(1)).toEqual([`domain delta.co :: ${sorted([three, four])}`, `name delta co :: ${sorted([one, three, four])}`])
      // four deleted: its groups lose it; restored, it is back in both.
      await ok("DELETE", `/v1/companies/${four}`)
      expect(await added(100)).toEqual([`name delta co :: ${sorted([one, three])}`])
      await ok("POST", `/v1/companies/${four}/restore`)
      expect(await added(100)).toEqual([`domain delta.co :: ${sorted([three, four])}`, `name delta co :: ${sorted([one, three, four])}`])
      // Unmerged, two is back where its values put it.
      await ok("POST", `/v1/companies/${one}/unmerge`, { company_id: two })
      expect(await added(3)).toEqual([
        `domain delta.co :: ${sorted([three, four])}`,
        `domain delta.io :: ${sorted([one, two])}`,
        `name delta co :: ${sorted([one, two, three, four])}`
      ])
    })

    it("has no email group among live contacts: the same email, trimmed and in any case, is refused 409", async () => {
      const first = (await ok("POST", "/v1/contacts", { email: "Same@Dup.io" })).id
      for (const email of ["same@dup.io", " SAME@dup.io\t"]) {
        const answer = await host.call("POST", "/v1/contacts", { body: { email } })
        expect(answer.status, email).toBe(409)
      }
      // Deleted, its email is free: the new contact holds it alone, the deleted one is in no group.
      await ok("DELETE", `/v1/contacts/${first}`)
      await ok("POST", "/v1/contacts", { email: "same@dup.io" })
      expect((await groups("contacts", 100)).filter((g) => g.startsWith("email "))).toEqual([])
    })

    it("refuses a bad limit, a bad cursor and an unknown parameter with 400, in the error shape", async () => {
      for (const query of ["limit=0", "limit=101", "limit=x", "cursor=nope", "sort=id"]) {
        const answer = await host.call("GET", `/v1/contacts/duplicates?${query}`)
        expect(answer.status, query).toBe(400)
        expect(errorOf(answer).code, query).toBe("validation_error")
      }
      // A list's cursor is not a duplicates cursor.
      await ok("POST", "/v1/contacts", { email: "x@dup.io" })
      await ok("POST", "/v1/contacts", { email: "y@dup.io" })
      const listCursor = (await ok("GET", "/v1/contacts?limit=1")).next_cursor
      const answer = await host.call("GET", `/v1/contacts/duplicates?cursor=${listCursor}`)
      expect(answer.status).toBe(400)
      expect(errorOf(answer).details[0]?.path).toBe("cursor")
      // Nor is the contacts' duplicates cursor the companies'.
      for (const n of [1, 2]) {
        const phone = `555 0000 00${n}`
        await ok("POST", "/v1/contacts", { email: `cursor.a${n}@dup.io`, phone })
        await ok("POST", "/v1/contacts", { email: `cursor.b${n}@dup.io`, phone })
      }
      const contactsCursor = (await ok("GET", "/v1/contacts/duplicates?limit=1")).next_cursor
      expect(contactsCursor).toEqual(expect.any(String))
      expect((await host.call("GET", `/v1/contacts/duplicates?limit=1&cursor=${contactsCursor}`)).status).toBe(200)
      const crossed = await host.call("GET", `/v1/companies/duplicates?cursor=${contactsCursor}`)
      expect(crossed.status).toBe(400)
      expect(errorOf(crossed).details[0]?.path).toBe("cursor")
    })
  })
}
