import { onBothStorages, type StorageServices } from "../support/bothStorages.js"
import { contactAggregate, type EngineService, type JsonObject } from "@dealstream/core"
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { engineOver } from "../support/engine.js"

/**
 * Finding duplicates (issue 28, item 5), the same on both storages: random contacts and companies,
 * written, changed, deleted and restored through the engine, then every page of
 * `duplicates` read with a random page size; the groups must be those this test computes from
 * what it wrote, by its own reading of API.md's rules (not core's nor the SQL's code). PostgreSQL
 * reads them from the keys its triggers keep in the commit (migration 0031), memory storage from
 * the records.
 */

interface ContactSpec {
  readonly email: string
  readonly phone: string | null
  readonly first: string | null
  readonly last: string | null
  readonly companies: ReadonlyArray<number>
}

const _variant = (base: string) =>
  fc.tuple(fc.constantFrom(base, base.toUpperCase(), ` ${base}`, `${base}\t`), fc.constant(base)).map(([v]) => v)
const person = fc.record({
  email: fc.constantFrom("ann", "bob", "cy"),
  phone: fc.option(fc.constantFrom("+1 (555) 010-2030", "15550102030", "555-0102", "12 34"), { nil: null }),
  first: fc.option(fc.constantFrom("Ann", "ann ", "Bo"), { nil: null }),
  last: fc.option(fc.constantFrom("Lee", "LEE", "Ng"), { nil: null }),
  companies: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 })
})
const firm = fc.record({
  domain: fc.option(fc.constantFrom("acme.io", "www.acme.io", "ACME.io ", "beta.io"), { nil: null }),
  name: fc.constantFrom("Acme", "acme ", "Beta")
})
const scenario = fc.record({
  companies: fc.array(firm, { minLength: 3, maxLength: 6 }),
  contacts: fc.array(person, { minLength: 2, maxLength: 12 }),
  // Per contact: 0 as created, 1 deleted, 2 deleted and restored, 3 its phone changed to another's.
  fates: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 12, maxLength: 12 }),
  page: fc.integer({ min: 1, max: 4 })
})

/**
 * This test's own reading of the rules: each record's keys as [what it is grouped by, how the group
 * is shown]; the groups shown with their sorted ids, sorted.
 */
const expectedGroups = (keyed: ReadonlyArray<{ readonly id: string; readonly keys: ReadonlyArray<readonly [string, string]> }>) => {
  const groups = new Map<string, { shown: string; ids: Array<string> }>()
  for (const { id, keys } of keyed) {
    for (const [key, shown] of keys) {
      const group = groups.get(key) ?? { shown, ids: [] }
      if (!group.ids.includes(id)) group.ids.push(id)
      groups.set(key, group)
    }
  }
  return [...groups.values()]
    .filter(({ ids }) => ids.length > 1)
    .map(({ ids, shown }) => `${shown} :: ${[...ids].sort().join(",")}`)
    .sort()
}
const same = (key: string): readonly [string, string] => [key, key]
const squeeze = (s: string | null) => (s ?? "").trim().toLowerCase()

let runs = 0

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never

const run = (engine: EngineService, s: Scenario) =>
  Effect.gen(function* () {
    const ctx = { workspaceId: `dups_${Date.now().toString(36)}_${runs++}`, requestId: null, actor: "test" }
    const companyIds: Array<string> = []
    for (const [i, c] of s.companies.entries()) {
      const made = yield* engine.companies.create(ctx, { name: c.name, ...(c.domain === null ? {} : { domain: `${i}.${c.domain}` }) })
      companyIds.push(made.data["id"] as string)
    }
    // Company domains are unique among live companies: each is made unique by its index, then one is
    // given a shared domain by an update of its own (the update path of the keys).
    const shared = companyIds.length - 1
    yield* engine.companies.update(ctx, companyIds[shared]!, { domain: "www.Shared.io" }, null)
    const contacts: Array<{ id: string; spec: ContactSpec; live: boolean; phone: string | null }> = []
    for (const [i, c] of s.contacts.entries()) {
      const made = yield* engine.contacts.create(ctx, {
        email: `${i}.${c.email}@x.io`,
        ...(c.phone === null ? {} : { phone: c.phone }),
        ...(c.first === null ? {} : { first_name: c.first }),
        ...(c.last === null ? {} : { last_name: c.last }),
        company_ids: c.companies.map((n) => companyIds[n % companyIds.length]!)
      })
      contacts.push({ id: made.data["id"] as string, spec: c, live: true, phone: c.phone })
    }
    for (const [i, contact] of contacts.entries()) {
      const fate = s.fates[i]!
      if (fate === 1 || fate === 2) yield* engine.contacts.delete(ctx, contact.id, null)
      if (fate === 1) contact.live = false
      if (fate === 2) yield* engine.contacts.restore(ctx, contact.id)
      if (fate === 3) {
        contact.phone = "555 0102"
        yield* engine.contacts.update(ctx, contact.id, { phone: contact.phone }, null)
      }
    }

    const contactKeys = contacts
      .filter((c) => c.live)
      .map((c) => {
        const digits = (c.phone ?? "").replace(/\D/g, "")
        // Grouped by first and last name; shown as the two, trimmed.
        const name = `${squeeze(c.spec.first)} ${squeeze(c.spec.last)}`
        return {
          id: c.id,
          keys: [
            ...(digits.length >= 7 ? [same(`phone ${digits}`)] : []),
            ...(name === " "
              ? []
              : c.spec.companies.map((n): readonly [string, string] => {
                  const company = companyIds[n % companyIds.length]
                  return [`name_company ${name} @${company}`, `name_company ${name.trim()} @${company}`]
                }))
          ]
        }
      })
    const companyKeys = s.companies.map((c, i) => ({
      id: companyIds[i]!,
      keys: [
        same(`name ${squeeze(c.name)}`),
        ...(i === shared ? [same("domain shared.io")] : c.domain === null ? [] : [same(`domain ${squeeze(`${i}.${c.domain}`)}`)])
      ]
    }))

    const pages = (
      read: (
        params: Readonly<Record<string, string>>
      ) => Effect.Effect<{ readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null }, unknown>
    ) =>
      Effect.gen(function* () {
        const all: Array<string> = []
        for (let cursor: string | null = null, n = 0; n < 100; n++) {
          const page: { readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null } = yield* read({
            limit: String(s.page),
            ...(cursor === null ? {} : { cursor })
          })
          expect(page.data.length).toBeLessThanOrEqual(s.page)
          for (const g of page.data) {
            const key = g["rule"] === "name_company" ? `name_company ${g["value"]} @${g["company_id"]}` : `${g["rule"]} ${g["value"]}`
            all.push(`${key} :: ${(g["ids"] as ReadonlyArray<string>).join(",")}`)
          }
          if (page.next_cursor === null) return all
          cursor = page.next_cursor
        }
        return all
      })
    const contactsFound = yield* pages((params) => engine.contacts.duplicates(ctx, params))
    const companiesFound = yield* pages((params) => engine.companies.duplicates(ctx, params))
    // The pages come in the storage's (rule, key) order; as sets they are the expected groups.
    expect([...contactsFound].sort()).toEqual(expectedGroups(contactKeys))
    expect([...companiesFound].sort()).toEqual(expectedGroups(companyKeys))
    expect(new Set(contactsFound).size).toBe(contactsFound.length)
  })

const property = (services: StorageServices, numRuns: number) =>
  Effect.gen(function* () {
    const engine = yield* engineOver(services)
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(scenario, (s) => Effect.runPromise(run(engine, s))),
        { numRuns }
      )
    )
  }).pipe(Effect.scoped)

/** Writers creating and deleting holders of one phone at once: the group counts them all (PostgreSQL serializes a key's changes). */
const concurrent = (services: StorageServices) =>
  Effect.gen(function* () {
    const engine = yield* engineOver(services)
    const ctx = { workspaceId: `dups_race_${Date.now().toString(36)}_${runs++}`, requestId: null, actor: "test" }
    const made = yield* Effect.forEach(
      Array.from({ length: 12 }, (_, i) => i),
      (i) => Effect.map(engine.contacts.create(ctx, { email: `r${i}@race.io`, phone: "+1 555 010 9999" }), (c) => c.data["id"] as string),
      { concurrency: "unbounded" }
    )
    yield* Effect.forEach(made.slice(0, 5), (id) => engine.contacts.delete(ctx, id, null), { concurrency: "unbounded" })
    const page = yield* engine.contacts.duplicates(ctx, {})
    expect(page.data).toEqual([{ ids: [...made.slice(5)].sort(), rule: "phone", value: "15550109999" }])
    yield* Effect.forEach(made.slice(5, 11), (id) => engine.contacts.delete(ctx, id, null), { concurrency: "unbounded" })
    expect((yield* engine.contacts.duplicates(ctx, {})).data).toEqual([])
  }).pipe(Effect.scoped)

/**
 * Contacts written before contacts stored `company_ids`: their `company_id` was free text, which
 * names no company (contact/companyLinks.ts, linkedCompanyIds), so a shared name and text are no
 * `name_company` group, whatever the text says, even the id of a company others link. The engine can
 * no longer write such a contact, so it is committed to the storage directly. On the rule before
 * (core's duplicateKeys taking `company_id` when `company_ids` was absent, and migration 0031's SQL
 * doing the same until 0032) this fails on both storages: checked once against that code, it listed
 * the first two as a group (shown as `company_id` "Acme", value "Inc ann lee": the view cuts the key
 * at its first space) and the third with the linked pair.
 */
const ofBefore = (services: StorageServices) =>
  Effect.gen(function* () {
    const engine = yield* engineOver(services)
    const ctx = { workspaceId: `dups_before_${Date.now().toString(36)}_${runs++}`, requestId: null, actor: "test" }
    const companyId = (yield* engine.companies.create(ctx, { name: "Acme Inc" })).data["id"] as string
    const linked = yield* Effect.forEach(["l1", "l2"], (name) =>
      Effect.map(
        engine.contacts.create(ctx, { email: `${name}@now.io`, first_name: "Ann", last_name: "Lee", company_ids: [companyId] }),
        (c) => c.data["id"] as string
      )
    )
    const at = "2026-01-05T10:00:00.000Z"
    const stored = (id: string, companyText: string) =>
      Effect.gen(function* () {
        const fields = {
          email: `${id}@before.io`,
          first_name: " ann",
          last_name: "LEE",
          phone: "+1 555 010 7777",
          title: null,
          company_id: companyText,
          source: null,
          owner_id: null
        }
        const created = { type: "contact.created" as const, data: { id, fields, at } }
        yield* services.storage.commit({
          streams: [
            {
              streamId: id,
              expectedVersion: 0,
              events: [{ ...created, metadata: { workspaceId: ctx.workspaceId, eventId: `evt_${id}`, requestId: null, actor: "test" } }]
            }
          ],
          documents: contactAggregate.documents(
            { workspaceId: ctx.workspaceId, id, definitions: [] },
            { before: null, fresh: [created], version: 1 }
          )
        })
        return id
      })
    const suffix = ctx.workspaceId.slice(-8)
    const before = [yield* stored(`con_b1${suffix}`, "Acme Inc"), yield* stored(`con_b2${suffix}`, "Acme Inc")]
    const named = yield* stored(`con_b3${suffix}`, companyId)
    // An edit that leaves the companies alone keeps the contact as it was (the triggers' update path).
    yield* engine.contacts.update(ctx, before[1]!, { title: "CEO" }, null)
    const page = yield* engine.contacts.duplicates(ctx, {})
    expect(page.data).toEqual([
      { ids: [...linked].sort(), rule: "name_company", value: "ann lee", company_id: companyId },
      { ids: [...before, named].sort(), rule: "phone", value: "15550107777" }
    ])
  }).pipe(Effect.scoped)

describe("duplicates: groups of live records sharing a key, paged", () => {
  onBothStorages(concurrent, ", concurrent holders of one key")
  onBothStorages(ofBefore, ", contacts of before company_ids")
  // Memory storage takes more runs: each costs it a fraction of PostgreSQL's.
  onBothStorages((services, kind) => property(services, kind === "memory" ? 40 : 15))
})
