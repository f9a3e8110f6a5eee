import { describe, expect, it } from "vitest"
import { type Answer, hostFor, STORAGES } from "./client.js"

/**
 * README: "Defining the same key again shows the old values that still fit the new type (others
 * read as absent)." One key defined as number, text and boolean in turn, each time holding a value
 * of that type on another record; after every redefinition each record shows its old value only if
 * it fits the type of the day, in reads, lists, filters and sorting, on each storage.
 */

describe.each(STORAGES)("a redefined custom field on %s storage", (storage) => {
  const host = hostFor(storage)

  const ok = async (answer: Promise<Answer>, status = 200) => {
    const done = await answer
    expect({ status: done.status, body: done.body }).toMatchObject({ status })
    return done.body
  }
  const define = (object: string, key: string, type: string) =>
    ok(host.call("POST", "/v1/custom-fields", { body: { object, key, label: key, type } }), 201)
  const undefine = (object: string, key: string) => ok(host.call("DELETE", `/v1/custom-fields/${object}/${key}`), 204)
  const ids = (page: { data: Array<{ id: string }> }) => page.data.map((record) => record.id)
  const list = (resource: string, params: Record<string, string>) =>
    ok(host.call("GET", `/v1/${resource}?${new URLSearchParams(params).toString()}`))

  it("contacts: each definition shows the values of its type and hides the others", async () => {
    // The contacts of this test only, whatever else the workspace holds.
    const mine = (filter: object) => JSON.stringify({ $and: [{ email: { $starts_with: "redef-" } }, filter] })
    const contact = async (email: string, level: unknown) =>
      (await ok(host.call("POST", "/v1/contacts", { body: { email, level } }), 201)).id as string

    await define("contact", "level", "number")
    const five = await contact("redef-five@x.io", 5)
    await undefine("contact", "level")
    await define("contact", "level", "text")
    const high = await contact("redef-high@x.io", "high")
    await undefine("contact", "level")
    await define("contact", "level", "boolean")
    const yes = await contact("redef-yes@x.io", true)
    const all = [five, high, yes].sort()

    const levels = async () => {
      const out: Record<string, unknown> = {}
      for (const id of [five, high, yes]) {
        const record = await ok(host.call("GET", `/v1/contacts/${id}`))
        out[id] = Object.hasOwn(record, "level") ? record.level : "absent"
      }
      return out
    }
    const listed = async () => {
      const page = await list("contacts", { filter: mine({}), limit: "100" })
      return Object.fromEntries(page.data.map((r: Record<string, unknown>) => [r["id"], Object.hasOwn(r, "level") ? r["level"] : "absent"]))
    }

    // Deleted: the key leaves every view.
    await undefine("contact", "level")
    expect(await levels()).toEqual({ [five]: "absent", [high]: "absent", [yes]: "absent" })

    await define("contact", "level", "number")
    expect(await levels()).toEqual({ [five]: 5, [high]: null, [yes]: null })
    expect(await listed()).toEqual(await levels())
    expect(ids(await list("contacts", { filter: mine({ level: { $exists: true } }) }))).toEqual([five])
    expect(ids(await list("contacts", { filter: mine({ level: { $gte: 0 } }) }))).toEqual([five])
    expect(ids(await list("contacts", { filter: mine({ level: { $exists: false } }) })).sort()).toEqual([high, yes].sort())
    // Values that do not fit sort as absent ones do: after the values ascending, before them descending.
    expect(ids(await list("contacts", { filter: mine({}), sort: "level" }))).toEqual([five, ...[high, yes].sort()])
    expect(ids(await list("contacts", { filter: mine({}), sort: "-level" }))).toEqual([...[high, yes].sort().reverse(), five])

    await undefine("contact", "level")
    await define("contact", "level", "text")
    expect(await levels()).toEqual({ [five]: null, [high]: "high", [yes]: null })
    expect(await listed()).toEqual(await levels())
    expect(ids(await list("contacts", { filter: mine({ level: { $exists: true } }) }))).toEqual([high])
    expect(ids(await list("contacts", { filter: mine({ level: { $starts_with: "HI" } }) }))).toEqual([high])
    expect(ids(await list("contacts", { filter: mine({}), search: "high" }))).toEqual([high])

    await undefine("contact", "level")
    await define("contact", "level", "boolean")
    expect(await levels()).toEqual({ [five]: null, [high]: null, [yes]: true })
    expect(await listed()).toEqual(await levels())
    expect(ids(await list("contacts", { filter: mine({ level: true }) }))).toEqual([yes])
    expect(ids(await list("contacts", { filter: mine({ level: { $ne: false } }) })).sort()).toEqual(all)

    // A value written under today's definition sits beside the old ones.
    await ok(host.call("PATCH", `/v1/contacts/${high}`, { body: { level: false } }))
    expect(await levels()).toEqual({ [five]: null, [high]: false, [yes]: true })
  })

  it("deals: the same, and in the trash", async () => {
    const { id: pipelineId } = (await ok(host.call("GET", "/v1/pipelines"))).data[0]
    const deal = async (name: string, budget: unknown) =>
      (await ok(host.call("POST", "/v1/deals", { body: { name, pipeline_id: pipelineId, budget } }), 201)).id as string

    await define("deal", "budget", "number")
    const ten = await deal("redef ten", 10)
    await undefine("deal", "budget")
    await define("deal", "budget", "text")
    const words = await deal("redef words", "ten thousand")
    await ok(host.call("DELETE", `/v1/deals/${words}`), 204)
    await undefine("deal", "budget")
    await define("deal", "budget", "number")

    expect((await ok(host.call("GET", `/v1/deals/${ten}`))).budget).toBe(10)
    expect(ids(await list("deals", { filter: JSON.stringify({ budget: { $gt: 5 } }) }))).toEqual([ten])
    const trashed = (await list("trash", { type: "deal" })).data.find((item: { id: string }) => item.id === words)
    expect(trashed.record.budget).toBeNull()

    await ok(host.call("POST", `/v1/deals/${words}/restore`))
    expect((await ok(host.call("GET", `/v1/deals/${words}`))).budget).toBeNull()
    await undefine("deal", "budget")
    await define("deal", "budget", "text")
    expect((await ok(host.call("GET", `/v1/deals/${words}`))).budget).toBe("ten thousand")
    expect((await ok(host.call("GET", `/v1/deals/${ten}`))).budget).toBeNull()
    expect(ids(await list("deals", { filter: JSON.stringify({ budget: { $contains: "THOUSAND" } }) }))).toEqual([words])
  })
})
