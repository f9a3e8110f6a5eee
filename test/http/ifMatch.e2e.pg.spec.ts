import { describe, expect, it } from "vitest"
import { type Answer, errorOf, hostFor, STORAGES } from "./client.js"

/**
 * README: "`If-Match` accepts `"7"`, `7`, `W/"7"` and `*` (no condition); a 412 carries the current
 * `ETag`." Every conditional route, over a real socket, on each storage. Each record is brought to
 * version 2 first, so that a version one below and one above the current one are both wrong.
 */

const MATCHING = ['"2"', "2", 'W/"2"', "*"]
const MISMATCHING = ['"1"', "3", 'W/"1"', 'W/"3"', '"7"', "7", 'W/"7"']
// Not an ETag of ours, or more than one: refused before anything is read or written.
const MALFORMED = ["abc", '"2", "3"', "W/2x"]

describe.each(STORAGES)("If-Match on %s storage", (storage) => {
  const host = hostFor(storage, { rateLimit: 10_000, rateBurst: 10_000, webhooks: { allowInsecure: true } })
  let n = 0
  const unique = () => `${Date.now().toString(36)}${++n}`

  const ok = async (answer: Promise<Answer>, status = 200) => {
    const done = await answer
    expect({ status: done.status, body: done.body }).toMatchObject({ status })
    return done
  }

  const pipeline = async () => {
    const sales = (await ok(host.call("GET", "/v1/pipelines"))).body.data[0]
    return { id: sales.id as string, stages: (sales.stages as Array<{ id: string }>).map((s) => s.id) }
  }

  interface Target {
    readonly name: string
    /** A new record at version 2; its path. */
    readonly make: () => Promise<string>
    readonly write: (path: string, ifMatch: string) => Promise<Answer>
    /** 200 with the record at version 3, or 204 and the record gone. */
    readonly writes: 200 | 204
  }

  const contact = async () => {
    const id = (await ok(host.call("POST", "/v1/contacts", { body: { email: `c${unique()}@x.io` } }), 201)).body.id
    await ok(host.call("PATCH", `/v1/contacts/${id}`, { body: { first_name: "Two" } }))
    return `/v1/contacts/${id}`
  }
  const deal = async () => {
    const { id: pipelineId, stages } = await pipeline()
    const id = (await ok(host.call("POST", "/v1/deals", { body: { name: "Deal", pipeline_id: pipelineId, stage_id: stages[0] } }), 201))
      .body.id
    await ok(host.call("PATCH", `/v1/deals/${id}`, { body: { value: 2 } }))
    return `/v1/deals/${id}`
  }
  const webhook = async () => {
    const id = (
      await ok(host.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/never-called", events: ["deal.restored"] } }), 201)
    ).body.id
    await ok(host.call("PATCH", `/v1/webhooks/${id}`, { body: { events: ["contact.restored"] } }))
    return `/v1/webhooks/${id}`
  }
  const withIfMatch = (ifMatch: string) => ({ "if-match": ifMatch })

  const targets: ReadonlyArray<Target> = [
    {
      name: "PATCH /v1/contacts/:id",
      make: contact,
      write: (path, ifMatch) => host.call("PATCH", path, { body: { first_name: "Three" }, headers: withIfMatch(ifMatch) }),
      writes: 200
    },
    {
      name: "DELETE /v1/contacts/:id",
      make: contact,
      write: (path, ifMatch) => host.call("DELETE", path, { headers: withIfMatch(ifMatch) }),
      writes: 204
    },
    {
      name: "PATCH /v1/deals/:id",
      make: deal,
      write: (path, ifMatch) => host.call("PATCH", path, { body: { value: 3 }, headers: withIfMatch(ifMatch) }),
      writes: 200
    },
    {
      name: "PUT /v1/deals/:id/stage",
      make: deal,
      write: async (path, ifMatch) => {
        const { stages } = await pipeline()
        return host.call("PUT", `${path}/stage`, { body: { stage_id: stages[1], reason: "If-Match" }, headers: withIfMatch(ifMatch) })
      },
      writes: 200
    },
    {
      name: "DELETE /v1/deals/:id",
      make: deal,
      write: (path, ifMatch) => host.call("DELETE", path, { headers: withIfMatch(ifMatch) }),
      writes: 204
    },
    {
      name: "PATCH /v1/pipelines/:id",
      make: async () => {
        const id = (await ok(host.call("POST", "/v1/pipelines", { body: { name: "One", stages: [{ name: "A" }] } }), 201)).body.id
        await ok(host.call("PATCH", `/v1/pipelines/${id}`, { body: { name: "Two" } }))
        return `/v1/pipelines/${id}`
      },
      write: (path, ifMatch) => host.call("PATCH", path, { body: { name: "Three" }, headers: withIfMatch(ifMatch) }),
      writes: 200
    },
    {
      name: "PATCH /v1/webhooks/:id",
      make: webhook,
      write: (path, ifMatch) => host.call("PATCH", path, { body: { events: ["deal.deleted"] }, headers: withIfMatch(ifMatch) }),
      writes: 200
    },
    {
      name: "DELETE /v1/webhooks/:id",
      make: webhook,
      write: (path, ifMatch) => host.call("DELETE", path, { headers: withIfMatch(ifMatch) }),
      writes: 204
    }
  ]

  /** The record as a client sees it: status, ETag and body. */
  const read = async (path: string) => {
    const answer = await host.call("GET", path)
    return { status: answer.status, etag: answer.headers.get("etag"), body: answer.body }
  }

  describe.each(targets)("$name", (target) => {
    it.each(MATCHING)("If-Match: %s names version 2 (or any): the write happens", async (ifMatch) => {
      const path = await target.make()
      expect((await read(path)).etag).toBe('"2"')
      const answer = await target.write(path, ifMatch)
      expect({ status: answer.status, body: answer.body }).toMatchObject({ status: target.writes })
      if (target.writes === 204) {
        expect((await read(path)).status).toBe(404)
      } else {
        expect(answer.headers.get("etag")).toBe('"3"')
        expect((await read(path)).etag).toBe('"3"')
      }
    })

    it("any other version is 412 precondition_failed with the current ETag, and nothing changes", async () => {
      const path = await target.make()
      const before = await read(path)
      expect(before).toMatchObject({ status: 200, etag: '"2"' })
      for (const ifMatch of MISMATCHING) {
        const answer = await target.write(path, ifMatch)
        expect({ ifMatch, status: answer.status, code: errorOf(answer).code, etag: answer.headers.get("etag") }).toEqual({
          ifMatch,
          status: 412,
          code: "precondition_failed",
          etag: '"2"'
        })
        expect(await read(path)).toEqual(before)
      }
    })

    it("a value that is no single ETag is 400 at If-Match, and nothing changes", async () => {
      const path = await target.make()
      const before = await read(path)
      for (const ifMatch of MALFORMED) {
        const answer = await target.write(path, ifMatch)
        const error = errorOf(answer)
        expect({ ifMatch, status: answer.status, code: error.code, path: error.details[0]?.path }).toEqual({
          ifMatch,
          status: 400,
          code: "validation_error",
          path: "If-Match"
        })
        expect(await read(path)).toEqual(before)
      }
    })
  })
})
