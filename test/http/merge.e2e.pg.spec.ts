import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { eventually, type Receiver, startReceiver } from "../webhooks/receiver.js"
import { errorOf, hostFor, STORAGES } from "./client.js"

// Merging duplicates (API.md, "Merge and duplicates"; issue 28, item 1), over a real host on each
// storage: the survivor's fields, the links that move to it, the merged records in the trash, a dry
// run that changes nothing, bad bodies refused whole, and a merge racing writes to its records.

type Json = Record<string, any>

for (const storage of STORAGES) {
  describe(`merging on ${storage} storage`, () => {
    const host = hostFor(storage, { webhooks: { allowInsecure: true } })
    let receiver: Receiver
    beforeAll(async () => {
      receiver = await startReceiver()
    })
    afterAll(() => receiver.close())

    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await host.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300)
      return answer.body
    }
    const pipelineId = async () => (await ok("GET", "/v1/pipelines")).data[0].id as string
    const trashed = async (type: string, id: string) =>
      ((await ok("GET", `/v1/trash?type=${type}&limit=100`)).data as Array<Json>).find((item) => item.id === id)

    it("fills the survivor's empty fields in the order given, takes prefer's choice, never copies the email, unions companies", async () => {
      await ok("POST", "/v1/custom-fields", { object: "contact", key: "tier", label: "Tier", type: "text" })
      const [c1, c2, c3] = await Promise.all(
        ["Acme", "Beta", "Gamma"].map((name) => ok("POST", "/v1/companies", { name, domain: `${name.toLowerCase()}.merge.io` }))
      )
      const survivor = await ok("POST", "/v1/contacts", {
        email: "ada@fields.io",
        first_name: "Ada",
        last_name: null,
        title: "CTO",
        company_ids: [c1!.id],
        tier: "gold"
      })
      const first = await ok("POST", "/v1/contacts", {
        email: "ada.l@fields.io",
        last_name: "Lovelace",
        phone: "+44 20 1111 1111",
        title: "CEO",
        company_ids: [c2!.id, c1!.id]
      })
      const second = await ok("POST", "/v1/contacts", {
        email: "a.lovelace@fields.io",
        last_name: "Byron",
        phone: "+44 20 2222 2222",
        source: "webinar",
        company_ids: [c3!.id],
        tier: "silver"
      })
      const answer = await ok("POST", `/v1/contacts/${survivor.id}/merge`, {
        merge_ids: [first.id, second.id],
        prefer: { phone: second.id, tier: second.id }
      })
      const expected = {
        id: survivor.id,
        email: "ada@fields.io",
        first_name: "Ada",
        last_name: "Lovelace",
        phone: "+44 20 2222 2222",
        title: "CTO",
        company_id: c1!.id,
        company_ids: [c1!.id, c2!.id, c3!.id],
        source: "webinar",
        tier: "silver"
      }
      expect(answer.contact).toMatchObject(expected)
      expect(answer.merged_ids).toEqual([first.id, second.id])
      expect(answer.moved).toEqual({ deal_ids: [], activity_ids: [], company_ids: [c2!.id, c3!.id] })
      expect(await ok("GET", `/v1/contacts/${survivor.id}`)).toEqual(answer.contact)
      for (const merged of [first, second]) {
        expect((await host.call("GET", `/v1/contacts/${merged.id}`, { redirect: "manual" })).status).toBe(308)
        const item = await trashed("contact", merged.id)
        expect(item?.merged_into).toBe(survivor.id)
        expect(item?.record).toMatchObject({ id: merged.id, email: merged.email })
      }
      // The merged emails are free again: the merged contacts hold no unique key.
      await ok("POST", "/v1/contacts", { email: "ADA.L@fields.io" })
      // A company lists the survivor once, and no merged contact.
      const company = await ok("GET", `/v1/companies/${c1!.id}`)
      expect(company.contact_ids).toEqual([survivor.id])
    })

    it("re-points every deal and activity link to the survivor, once, and the survivor's deal_ids show them", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@links.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@links.io" })
      const bystander = await ok("POST", "/v1/contacts", { email: "b@links.io" })
      const pipeline_id = await pipelineId()
      const both = await ok("POST", "/v1/deals", { name: "Both", pipeline_id, contact_ids: [merged.id, bystander.id, survivor.id] })
      const only = await ok("POST", "/v1/deals", { name: "Only", pipeline_id, contact_ids: [merged.id] })
      const untouched = await ok("POST", "/v1/deals", { name: "Untouched", pipeline_id, contact_ids: [bystander.id] })
      const call = await ok("POST", "/v1/activities", { type: "call", subject: "Call", contact_ids: [survivor.id, merged.id] })
      const answer = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      expect(answer.moved).toEqual({ deal_ids: [both.id, only.id].sort(), activity_ids: [call.id], company_ids: [] })
      expect((await ok("GET", `/v1/deals/${both.id}`)).contact_ids).toEqual([survivor.id, bystander.id])
      expect((await ok("GET", `/v1/deals/${only.id}`)).contact_ids).toEqual([survivor.id])
      expect(await ok("GET", `/v1/deals/${untouched.id}`)).toEqual(untouched)
      expect((await ok("GET", `/v1/activities/${call.id}`)).contact_ids).toEqual([survivor.id])
      expect([...(await ok("GET", `/v1/contacts/${survivor.id}`)).deal_ids].sort()).toEqual([both.id, only.id].sort())
      expect(answer.contact.deal_ids.slice().sort()).toEqual([both.id, only.id].sort())
    })

    it("answers a dry run as the merge would and changes nothing", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@dry.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@dry.io", first_name: "Mo", title: "VP" })
      const deal = await ok("POST", "/v1/deals", { name: "Dry", pipeline_id: await pipelineId(), contact_ids: [merged.id] })
      const dry = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id], dry_run: true })
      expect(dry.contact).toMatchObject({ id: survivor.id, email: "s@dry.io", first_name: "Mo", title: "VP", deal_ids: [deal.id] })
      expect(dry.moved).toEqual({ deal_ids: [deal.id], activity_ids: [], company_ids: [] })
      expect(await ok("GET", `/v1/contacts/${survivor.id}`)).toEqual(survivor)
      expect((await ok("GET", `/v1/contacts/${merged.id}`)).first_name).toBe("Mo")
      expect(await ok("GET", `/v1/deals/${deal.id}`)).toEqual(deal)
      const history = await ok("GET", `/v1/contacts/${survivor.id}/history`)
      expect(history.data).toHaveLength(1)
      const real = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      expect({ ...real.contact, updated_at: null }).toEqual({ ...dry.contact, updated_at: null })
      expect(real.moved).toEqual(dry.moved)
    })

    it("refuses a bad body whole with 400 at its paths, an unknown survivor with 404, and changes nothing", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@bad.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@bad.io", first_name: "Kept" })
      const deleted = await ok("POST", "/v1/contacts", { email: "d@bad.io" })
      await ok("DELETE", `/v1/contacts/${deleted.id}`)
      const refused = async (body: unknown, paths: ReadonlyArray<string>) => {
        const answer = await host.call("POST", `/v1/contacts/${survivor.id}/merge`, { body })
        expect(answer.status, answer.text).toBe(400)
        const error = errorOf(answer)
        expect(error.code).toBe("validation_error")
        expect(error.details.map((detail) => detail.path)).toEqual(paths)
      }
      await refused({}, ["merge_ids"])
      await refused({ merge_ids: [] }, ["merge_ids"])
      await refused({ merge_ids: Array.from({ length: 10 }, (_, i) => `con_${i}`) }, ["merge_ids"])
      await refused({ merge_ids: [survivor.id] }, ["merge_ids[0]"])
      await refused({ merge_ids: [merged.id, merged.id] }, ["merge_ids[1]"])
      await refused({ merge_ids: [merged.id], prefer: { email: merged.id } }, ["prefer.email"])
      await refused({ merge_ids: [merged.id], prefer: { nickname: merged.id } }, ["prefer.nickname"])
      await refused({ merge_ids: [merged.id], prefer: { title: "con_other" } }, ["prefer.title"])
      await refused({ merge_ids: [merged.id], dry_run: "yes" }, ["dry_run"])
      await refused({ merge_ids: [merged.id], extra: 1 }, ["extra"])
      await refused({ merge_ids: [merged.id, deleted.id] }, ["merge_ids[1]"])
      await refused({ merge_ids: [merged.id, "con_nobody"] }, ["merge_ids[1]"])
      const missing = await host.call("POST", "/v1/contacts/con_nobody/merge", { body: { merge_ids: [merged.id] } })
      expect(missing.status).toBe(404)
      expect(errorOf(missing).code).toBe("not_found")
      expect(await ok("GET", `/v1/contacts/${survivor.id}`)).toEqual(survivor)
      expect(await ok("GET", `/v1/contacts/${merged.id}`)).toEqual(merged)
    })

    it("merges companies: the domain is never copied; contacts' and deals' company links move to the survivor", async () => {
      const survivor = await ok("POST", "/v1/companies", { name: "Acme", domain: "acme.co.merge" })
      const merged = await ok("POST", "/v1/companies", { name: "ACME Inc", domain: "acme-inc.merge", industry: "Rockets", size: 40 })
      const primary = await ok("POST", "/v1/contacts", { email: "p@acme.merge", company_ids: [merged.id, survivor.id] })
      const secondary = await ok("POST", "/v1/contacts", { email: "s@acme.merge", company_ids: [survivor.id, merged.id] })
      const deal = await ok("POST", "/v1/deals", { name: "Rocket", pipeline_id: await pipelineId(), company_id: merged.id })
      const note = await ok("POST", "/v1/activities", { type: "note", subject: "Note", company_ids: [merged.id] })
      const answer = await ok("POST", `/v1/companies/${survivor.id}/merge`, { merge_ids: [merged.id] })
      expect(answer.company).toMatchObject({ id: survivor.id, name: "Acme", domain: "acme.co.merge", industry: "Rockets", size: 40 })
      expect(answer.moved).toEqual({
        contact_ids: [primary.id, secondary.id].sort(),
        deal_ids: [deal.id],
        activity_ids: [note.id]
      })
      expect(await ok("GET", `/v1/contacts/${primary.id}`)).toMatchObject({ company_id: survivor.id, company_ids: [survivor.id] })
      expect(await ok("GET", `/v1/contacts/${secondary.id}`)).toMatchObject({ company_id: survivor.id, company_ids: [survivor.id] })
      expect((await ok("GET", `/v1/deals/${deal.id}`)).company_id).toBe(survivor.id)
      expect((await ok("GET", `/v1/activities/${note.id}`)).company_ids).toEqual([survivor.id])
      const shown = await ok("GET", `/v1/companies/${survivor.id}`)
      expect([...shown.contact_ids].sort()).toEqual([primary.id, secondary.id].sort())
      expect(shown.deal_ids).toEqual([deal.id])
      expect((await trashed("company", merged.id))?.merged_into).toBe(survivor.id)
      // Its domain is free again.
      await ok("POST", "/v1/companies", { name: "New", domain: "acme-inc.merge" })
    })

    it("answers every request on a merged id with 308 to the survivor; a client following redirects gets the survivor", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@redirect.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@redirect.io" })
      const company = await ok("POST", "/v1/companies", { name: "Redirect", domain: "redirect.io" })
      const duplicate = await ok("POST", "/v1/companies", { name: "Redirect Ltd" })
      await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      await ok("POST", `/v1/companies/${company.id}/merge`, { merge_ids: [duplicate.id] })
      const requests: ReadonlyArray<readonly [string, string, unknown]> = [
        ["GET", `/v1/contacts/${merged.id}`, undefined],
        ["PATCH", `/v1/contacts/${merged.id}`, { title: "Lost" }],
        ["DELETE", `/v1/contacts/${merged.id}`, undefined],
        ["POST", `/v1/contacts/${merged.id}/restore`, undefined],
        ["POST", `/v1/contacts/${merged.id}/merge`, { merge_ids: [survivor.id] }],
        ["GET", `/v1/companies/${duplicate.id}`, undefined],
        ["PATCH", `/v1/companies/${duplicate.id}`, { name: "Lost" }],
        ["DELETE", `/v1/companies/${duplicate.id}`, undefined],
        ["POST", `/v1/companies/${duplicate.id}/restore`, undefined]
      ]
      for (const [method, path, body] of requests) {
        const answer = await host.call(method, path, { redirect: "manual", ...(body === undefined ? {} : { body }) })
        expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(308)
        const into = path.startsWith("/v1/contacts") ? survivor.id : company.id
        expect(answer.headers.get("location")).toBe(`/v1/${path.split("/")[2]}/${into}`)
        const error = errorOf(answer)
        expect(error.code).toBe("merged")
        expect(error.details).toEqual([{ path: "", message: `merged into ${into}`, merged_into: into }])
      }
      // Nothing of those requests changed the survivors.
      expect(await ok("GET", `/v1/contacts/${merged.id}`)).toEqual(await ok("GET", `/v1/contacts/${survivor.id}`))
      expect((await ok("GET", `/v1/contacts/${survivor.id}`)).title).toBeNull()
      expect((await ok("GET", `/v1/companies/${duplicate.id}`)).name).toBe("Redirect")
      // Merging a merged record is refused at its place in merge_ids.
      const again = await host.call("POST", `/v1/contacts/${survivor.id}/merge`, { body: { merge_ids: [merged.id] } })
      expect(again.status).toBe(400)
      expect(errorOf(again).details[0]?.path).toBe("merge_ids[0]")
    })

    it("never resurrects a merged contact by an upsert on its email: the upsert creates a new one", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@upsert.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@upsert.io", first_name: "Merged" })
      await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      const batch = await ok("POST", "/v1/contacts/batch", {
        operations: [{ op: "upsert", match: { email: "m@upsert.io" }, data: { title: "New" } }]
      })
      const created = batch.results[0]
      expect(created.status, JSON.stringify(created)).toBe(201)
      expect(created.data.id).not.toBe(merged.id)
      expect(created.data).toMatchObject({ email: "m@upsert.io", first_name: null, title: "New" })
      expect((await trashed("contact", merged.id))?.merged_into).toBe(survivor.id)
    })

    it("unmerges within the window: the record back exactly as it was, its links back, the survivor without its values", async () => {
      const [acme, beta] = await Promise.all(["Acme", "Beta"].map((name) => ok("POST", "/v1/companies", { name })))
      const survivor = await ok("POST", "/v1/contacts", { email: "s@unmerge.io", first_name: "Sue", company_ids: [acme!.id] })
      const merged = await ok("POST", "/v1/contacts", {
        email: "m@unmerge.io",
        title: "CFO",
        phone: "+1 555 0199",
        company_ids: [beta!.id]
      })
      const other = await ok("POST", "/v1/contacts", { email: "o@unmerge.io", title: "CEO", source: "fair" })
      const bystander = await ok("POST", "/v1/contacts", { email: "b@unmerge.io" })
      const pipeline_id = await pipelineId()
      const both = await ok("POST", "/v1/deals", { name: "Both", pipeline_id, contact_ids: [merged.id, bystander.id, other.id] })
      const mine = await ok("POST", "/v1/deals", { name: "Mine", pipeline_id, contact_ids: [merged.id] })
      const call = await ok("POST", "/v1/activities", { type: "call", subject: "Call", contact_ids: [merged.id, survivor.id] })
      const beforeMerge = {
        merged: await ok("GET", `/v1/contacts/${merged.id}`),
        survivor: await ok("GET", `/v1/contacts/${survivor.id}`),
        mine: await ok("GET", `/v1/deals/${mine.id}`),
        call: await ok("GET", `/v1/activities/${call.id}`)
      }
      const merge = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id, other.id] })
      expect(merge.contact).toMatchObject({ title: "CFO", phone: "+1 555 0199", source: "fair", company_ids: [acme!.id, beta!.id] })
      const answer = await ok("POST", `/v1/contacts/${survivor.id}/unmerge`, { contact_id: merged.id })
      expect(answer.restored).toEqual(beforeMerge.merged)
      expect(await ok("GET", `/v1/contacts/${merged.id}`)).toEqual(beforeMerge.merged)
      // The survivor keeps what came from the contact still merged, and its own; what came from the restored one goes.
      expect(answer.contact).toMatchObject({ title: "CEO", phone: null, source: "fair", company_ids: [acme!.id], company_id: acme!.id })
      expect(await ok("GET", `/v1/contacts/${survivor.id}`)).toEqual(answer.contact)
      expect(await ok("GET", `/v1/deals/${mine.id}`)).toMatchObject({ contact_ids: beforeMerge.mine.contact_ids })
      expect((await ok("GET", `/v1/activities/${call.id}`)).contact_ids).toEqual(beforeMerge.call.contact_ids)
      // A deal that named both: the restored one is back where it was, the other still merged stays the survivor.
      expect((await ok("GET", `/v1/deals/${both.id}`)).contact_ids).toEqual([merged.id, bystander.id, survivor.id])
      expect([...answer.relinked_ids].sort()).toEqual([both.id, mine.id, call.id].sort())
      expect((await host.call("GET", `/v1/contacts/${other.id}`, { redirect: "manual" })).status).toBe(308)
      // Unmerged once: not again.
      const again = await host.call("POST", `/v1/contacts/${survivor.id}/unmerge`, { body: { contact_id: merged.id } })
      expect(again.status).toBe(400)
      expect(errorOf(again).details[0]?.path).toBe("contact_id")
      const history = (await ok("GET", `/v1/contacts/${merged.id}/history`)).data.map((entry: Json) => entry.type)
      expect(history).toEqual(["contact.created", "contact.merged_into", "contact.merge_undone"])
      const survivorHistory = (await ok("GET", `/v1/contacts/${survivor.id}/history`)).data.map((entry: Json) => entry.type)
      expect(survivorHistory).toEqual(["contact.created", "contact.merged", "contact.unmerged"])
    })

    it("leaves what changed since the merge as it is now: a field written on the survivor, a link written on a deal", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@since.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@since.io", title: "CTO", phone: "+1 555 0111" })
      const pipeline_id = await pipelineId()
      const kept = await ok("POST", "/v1/deals", { name: "Kept", pipeline_id, contact_ids: [merged.id] })
      const moved = await ok("POST", "/v1/deals", { name: "Moved", pipeline_id, contact_ids: [merged.id] })
      await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      await ok("PATCH", `/v1/contacts/${survivor.id}`, { title: "Chief" })
      const third = await ok("POST", "/v1/contacts", { email: "t@since.io" })
      await ok("PATCH", `/v1/deals/${kept.id}`, { contact_ids: [survivor.id, third.id] })
      const answer = await ok("POST", `/v1/contacts/${survivor.id}/unmerge`, { contact_id: merged.id })
      expect(answer.contact).toMatchObject({ title: "Chief", phone: null })
      expect(answer.relinked_ids).toEqual([moved.id])
      expect((await ok("GET", `/v1/deals/${kept.id}`)).contact_ids).toEqual([survivor.id, third.id])
      expect((await ok("GET", `/v1/deals/${moved.id}`)).contact_ids).toEqual([merged.id])
      expect(await ok("GET", `/v1/contacts/${merged.id}`)).toMatchObject({ title: "CTO", phone: "+1 555 0111", deal_ids: [moved.id] })
    })

    it("refuses an unmerge whose email was taken meanwhile with 409, and one of a record not merged into :id with 400", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@taken.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@taken.io" })
      const stranger = await ok("POST", "/v1/contacts", { email: "x@taken.io" })
      await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      const taker = await ok("POST", "/v1/contacts", { email: "M@taken.io" })
      const taken = await host.call("POST", `/v1/contacts/${survivor.id}/unmerge`, { body: { contact_id: merged.id } })
      expect(taken.status, taken.text).toBe(409)
      expect(errorOf(taken).code).toBe("conflict")
      expect((await host.call("GET", `/v1/contacts/${merged.id}`, { redirect: "manual" })).status).toBe(308)
      for (const [path, body, at] of [
        [`/v1/contacts/${survivor.id}/unmerge`, { contact_id: stranger.id }, "contact_id"],
        [`/v1/contacts/${stranger.id}/unmerge`, { contact_id: merged.id }, "contact_id"],
        [`/v1/contacts/${survivor.id}/unmerge`, {}, "contact_id"],
        [`/v1/contacts/${survivor.id}/unmerge`, { contact_id: 5 }, "contact_id"]
      ] as const) {
        const refused = await host.call("POST", path, { body })
        expect(refused.status, refused.text).toBe(400)
        expect(errorOf(refused).details[0]?.path).toBe(at)
      }
      await ok("DELETE", `/v1/contacts/${taker.id}`)
      const answer = await ok("POST", `/v1/contacts/${survivor.id}/unmerge`, { contact_id: merged.id })
      expect(answer.restored.email).toBe("m@taken.io")
    })

    it("unmerges a company: contacts' and deals' company links come back", async () => {
      const survivor = await ok("POST", "/v1/companies", { name: "Keep", domain: "keep.unmerge.io" })
      const merged = await ok("POST", "/v1/companies", { name: "Dup", domain: "dup.unmerge.io", industry: "Ships" })
      const person = await ok("POST", "/v1/contacts", { email: "p@dup.unmerge.io", company_ids: [merged.id] })
      const deal = await ok("POST", "/v1/deals", { name: "Ship", pipeline_id: await pipelineId(), company_id: merged.id })
      const before = await ok("GET", `/v1/companies/${merged.id}`)
      await ok("POST", `/v1/companies/${survivor.id}/merge`, { merge_ids: [merged.id] })
      const answer = await ok("POST", `/v1/companies/${survivor.id}/unmerge`, { company_id: merged.id })
      expect(answer.company).toMatchObject({ industry: null, contact_ids: [], deal_ids: [] })
      expect(answer.restored).toEqual(before)
      expect(await ok("GET", `/v1/contacts/${person.id}`)).toMatchObject({ company_id: merged.id, company_ids: [merged.id] })
      expect((await ok("GET", `/v1/deals/${deal.id}`)).company_id).toBe(merged.id)
    })

    it("announces contact.merged and contact.unmerged once each, to webhooks and the change feed, with the survivor as it became", async () => {
      const types = ["contact.merged", "contact.unmerged", "company.merged", "company.unmerged"]
      const listed = (await ok("GET", "/v1/webhook-event-types")).data.map((entry: Json) => entry.type)
      for (const type of types) expect(listed).toContain(type)
      const webhook = await ok("POST", "/v1/webhooks", { url: receiver.url, events: types })
      onTestFinished(() => host.call("DELETE", `/v1/webhooks/${webhook.id}`).then(() => undefined))
      const survivor = await ok("POST", "/v1/contacts", { email: "s@events.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@events.io", title: "COO" })
      const deal = await ok("POST", "/v1/deals", { name: "Evented", pipeline_id: await pipelineId(), contact_ids: [merged.id] })
      const merge = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      const unmerge = await ok("POST", `/v1/contacts/${survivor.id}/unmerge`, { contact_id: merged.id })
      const mine = (type: string) => (r: { json: Json }) => r.json?.type === type && r.json?.data?.contact?.id === survivor.id
      await receiver.waitFor(
        (received) => received.some(mine("contact.merged")) && received.some(mine("contact.unmerged")),
        "the merge's and the unmerge's deliveries"
      )
      const mergedDelivery = receiver.received.filter(mine("contact.merged"))
      expect(mergedDelivery.map((r) => r.json.data)).toEqual([{ contact: merge.contact, merged_ids: [merged.id] }])
      expect(merge.contact.deal_ids).toEqual([deal.id])
      const unmergedDelivery = receiver.received.filter(mine("contact.unmerged"))
      expect(unmergedDelivery.map((r) => r.json.data)).toEqual([{ contact: unmerge.contact, restored_id: merged.id }])
      expect(unmerge.contact.deal_ids).toEqual([])
      const feed = await eventually(async () => {
        const page = await ok("GET", "/v1/events?types=contact.*&limit=1000")
        const ours = page.data.filter((e: Json) => [survivor.id, merged.id].includes(e.data?.contact?.id ?? e.data?.id))
        return ours.some((e: Json) => e.type === "contact.unmerged") ? ours : undefined
      }, "the unmerge in the feed")
      expect(feed.map((e: Json) => e.type)).toEqual(["contact.created", "contact.created", "contact.merged", "contact.unmerged"])
      expect(feed[2].data).toEqual(mergedDelivery[0]!.json.data)
      expect(feed[3].data).toEqual(unmergedDelivery[0]!.json.data)
    })

    it("reads the records as they were before the merge with as_of", async () => {
      const survivor = await ok("POST", "/v1/contacts", { email: "s@asof.io" })
      const merged = await ok("POST", "/v1/contacts", { email: "m@asof.io", title: "Head" })
      const merge = await ok("POST", `/v1/contacts/${survivor.id}/merge`, { merge_ids: [merged.id] })
      // The millisecond before the merge's: the survivor's updated_at is the merge's time.
      const before = new Date(Date.parse(merge.contact.updated_at) - 1).toISOString()
      expect(await ok("GET", `/v1/contacts/${survivor.id}?as_of=${before}`)).toMatchObject({ id: survivor.id, title: null })
      expect(await ok("GET", `/v1/contacts/${merged.id}?as_of=${before}`)).toMatchObject({ id: merged.id, title: "Head" })
      expect((await ok("GET", `/v1/contacts/${survivor.id}`)).title).toBe("Head")
    })

    it("never half-applies while the records it involves are written concurrently", async () => {
      const pipeline_id = await pipelineId()
      for (let round = 0; round < 4; round++) {
        const survivor = await ok("POST", "/v1/contacts", { email: `s${round}@race.io` })
        const merged = await ok("POST", "/v1/contacts", { email: `m${round}@race.io` })
        const deals = await Promise.all(
          [0, 1, 2].map((i) => ok("POST", "/v1/deals", { name: `Race ${i}`, pipeline_id, contact_ids: [merged.id] }))
        )
        const [merge, ...writes] = await Promise.all([
          host.call("POST", `/v1/contacts/${survivor.id}/merge`, { body: { merge_ids: [merged.id] } }),
          ...deals.map((deal, i) => host.call("PATCH", `/v1/deals/${deal.id}`, { body: { name: `Raced ${i}` } })),
          host.call("PATCH", `/v1/contacts/${merged.id}`, { body: { title: "Raced" } }),
          host.call("PATCH", `/v1/contacts/${survivor.id}`, { body: { phone: "+1 555 0100" } })
        ])
        expect([200, 409], merge!.text).toContain(merge!.status)
        const applied = merge!.status === 200
        for (const deal of deals) {
          const now = await ok("GET", `/v1/deals/${deal.id}`)
          expect(now.contact_ids).toEqual([applied ? survivor.id : merged.id])
        }
        expect((await host.call("GET", `/v1/contacts/${merged.id}`, { redirect: "manual" })).status).toBe(applied ? 308 : 200)
        // The merged contact's own write either came first (and was merged) or failed on a merged contact.
        const mergedWrite = writes[3]!
        if (applied && mergedWrite.status === 200) expect((await ok("GET", `/v1/contacts/${survivor.id}`)).title).toBe("Raced")
        expect((await ok("GET", `/v1/contacts/${survivor.id}`)).phone).toBe(writes[4]!.status === 200 ? "+1 555 0100" : null)
      }
    })
  })
}
