import { Effect, Result } from "effect"
import { aggregateOf, decodeEvents, isErased } from "../../aggregate.js"
import { aggregates } from "../../engine/contract/aggregates.js"
import { rebuildDocuments } from "../../engine/workers/rebuild.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { StoredDocument } from "../../storage/documents.js"
import type { StoredEvent } from "../../storage/events.js"
import { recordTypes } from "../../recordTypes.js"
import { Storage } from "../../storage/Storage.js"
import { timelineProblems } from "../invariants/timeline.js"
import { sameData } from "../sameData.js"
import { MODEL_COLLECTIONS, type World } from "./world.js"

/** The record types with a trash: every one. */
const RECORDS: ReadonlyArray<string> = recordTypes

/** A check of one run: what is wrong with the world after a step (nothing when all is well). */
export type Check = (world: World<any>) => Effect.Effect<ReadonlyArray<string>, StorageUnavailable>

/**
 * An invariant of model runs. `start` is called once per run and gives that run's check, which may
 * remember earlier steps (delete then restore compares with what it saw before the delete). `when`:
 * after every step (the default), or once after the last (for costly ones, such as a real rebuild).
 */
export interface Invariant {
  readonly name: string
  readonly start: () => Check
  readonly when?: "step" | "end"
}

/** An invariant without memory: the same check after every step. */
export const invariant = (name: string, check: Check, when: "step" | "end" = "step"): Invariant => ({ name, start: () => check, when })

const keyOf = (doc: Pick<StoredDocument, "collection" | "workspaceId" | "id">) => `${doc.collection} ${doc.workspaceId} ${doc.id}`

const streamsOf = (events: ReadonlyArray<StoredEvent>) => {
  const streams = new Map<string, Array<StoredEvent>>()
  for (const event of events) streams.set(event.streamId, [...(streams.get(event.streamId) ?? []), event])
  return streams
}

const compareDocuments = (stored: ReadonlyArray<StoredDocument>, expected: ReadonlyArray<StoredDocument>, what: string) => {
  const want = new Map(expected.map((doc) => [keyOf(doc), doc]))
  const have = new Map(stored.map((doc) => [keyOf(doc), doc]))
  return [...new Set([...have.keys(), ...want.keys()])].flatMap((key) =>
    sameData(have.get(key), want.get(key))
      ? []
      : [`${key}: storage holds ${JSON.stringify(have.get(key) ?? null)}, ${what} ${JSON.stringify(want.get(key) ?? null)}`]
  )
}

/**
 * Rebuild equals incremental projection: every document storage holds for the run (contacts, deals,
 * timeline entries, pipelines, API keys; version, trash state and data) is exactly what the run's
 * log projects to, each stream projected whole by its aggregate, the way a rebuild does it. Storage
 * got its documents from the command path, command by command. Search words and unique keys are
 * not compared: the storage port does not return them.
 */
export const storedEqualsProjection: Invariant = invariant("stored documents equal the log's projection", (world) =>
  Effect.gen(function* () {
    const expected: Array<StoredDocument> = []
    for (const [streamId, stored] of streamsOf(yield* world.events)) {
      const aggregate = aggregateOf(aggregates, streamId)
      if (aggregate === undefined || isErased(stored) || !aggregate.collections.some((c) => [...MODEL_COLLECTIONS, "api_key"].includes(c)))
        continue
      const decoded = decodeEvents(aggregate, stored)
      if (Result.isFailure(decoded)) return [decoded.failure.message]
      const workspaceId = stored[0]!.metadata.workspaceId
      // Definitions only decide search words, which are not compared.
      const writes = aggregate.documents(
        { workspaceId, id: streamId, definitions: [] },
        {
          before: null,
          fresh: decoded.success,
          version: stored.length,
          all: decoded.success
        }
      )
      for (const write of writes) {
        if (write._tag === "Upsert") {
          expected.push({
            collection: write.collection,
            // A key's document is the reserved workspace's, whichever its stream's is.
            workspaceId: write.workspaceId,
            id: write.id,
            version: write.version,
            deletedAt: write.deletedAt,
            data: write.data
          })
        }
      }
    }
    return compareDocuments(yield* world.documents, expected, "the log projects to")
  })
)

/**
 * The same, with the rebuild `dealstream rebuild` runs: `rebuildDocuments` replaces the projected
 * documents from the log (of every workspace on the storage), and the run's must be unchanged, in
 * the same order. Costly: by default once, after the last step.
 */
export const storedEqualsRebuild: Invariant = invariant(
  "stored documents equal a rebuild's",
  (world) =>
    Effect.gen(function* () {
      const projected = (docs: ReadonlyArray<StoredDocument>) => docs.filter((doc) => doc.collection !== "api_key")
      const before = projected(yield* world.documentsNow)
      yield* rebuildDocuments().pipe(Effect.provideService(Storage, world.storage))
      const after = projected(yield* world.documentsNow)
      const problems = compareDocuments(before, after, "a rebuild writes")
      // And in the same order (id order within each collection and scope), which the above ignores.
      if (problems.length === 0 && !sameData(before.map(keyOf), after.map(keyOf)))
        problems.push("a rebuild lists the documents in another order")
      return problems
    }),
  "end"
)

/**
 * The timeline chains and matches the current stage: for every deal of the run, one entry per
 * `deal.stage_changed` holding what its event says, chaining from the creation stage without staying
 * in place or going back in time, and ending in the stage the deal's document is in (timelineProblems).
 */
export const timelineChains: Invariant = invariant("timelines chain and end in the deal's stage", (world) =>
  Effect.gen(function* () {
    const documents = yield* world.documents
    const problems: Array<string> = []
    const dealStreams = [...streamsOf(yield* world.events)].filter(([id]) => id.startsWith("deal_"))
    const known = new Set(dealStreams.map(([id]) => id))
    for (const entry of documents.filter((doc) => doc.collection === "timeline_entry")) {
      if (!known.has(entry.data["deal_id"] as string))
        problems.push(`timeline entry ${entry.id} names ${entry.data["deal_id"]}, which has no events`)
    }
    for (const [dealId, events] of dealStreams) {
      problems.push(
        ...timelineProblems({
          dealId,
          events,
          deal: documents.find((doc) => doc.collection === "deal" && doc.id === dealId)?.data ?? null,
          entries: documents.filter((doc) => doc.collection === "timeline_entry" && doc.data["deal_id"] === dealId).map((doc) => doc.data)
        })
      )
    }
    return problems
  })
)

/**
 * Whether `now` is `before` with contacts taken out of its contact_ids and nothing else changed: what
 * a contact's erasure does to a deal or an activity, in the trash or not (`contact_unlinked`).
 */
const onlyUnlinked = (before: JsonObject, now: JsonObject): boolean => {
  const was = before["contact_ids"]
  const is = now["contact_ids"]
  return Array.isArray(was) && Array.isArray(is) && is.every((id) => was.includes(id)) && sameData({ ...before, contact_ids: is }, now)
}

/**
 * Delete then restore is identity: a record (contact, deal, company, activity) restored from the trash holds exactly the
 * document it held before it was deleted (stored data; its version moves on), but for the contacts
 * a person's erasure took out of it meanwhile, the one change a record in the trash may see. A merge
 * is such a delete and an unmerge such a restore: in the trash the merged record only names its
 * survivor (`merged_into`, which the trash shows), and comes back exactly as it was.
 */
const inTrash = (data: JsonObject): JsonObject => {
  const { merged_into: _, ...kept } = data
  return kept
}

export const deleteThenRestoreIsIdentity: Invariant = {
  name: "delete then restore is identity",
  start: () => {
    const lastLive = new Map<string, JsonObject>()
    const beforeDelete = new Map<string, JsonObject>()
    return (world) =>
      Effect.map(world.documents, (documents) => {
        const problems: Array<string> = []
        for (const doc of documents) {
          if (!RECORDS.includes(doc.collection)) continue
          const key = keyOf(doc)
          if (doc.deletedAt !== null) {
            const live = lastLive.get(key)
            if (live !== undefined) beforeDelete.set(key, live)
            lastLive.delete(key)
            const held = beforeDelete.get(key)
            if (held !== undefined && !sameData(inTrash(doc.data), held)) {
              if (onlyUnlinked(held, inTrash(doc.data))) beforeDelete.set(key, inTrash(doc.data))
              else problems.push(`${key} changed in the trash from ${JSON.stringify(held)} to ${JSON.stringify(doc.data)}`)
            }
            continue
          }
          const deleted = beforeDelete.get(key)
          if (deleted !== undefined && !sameData(doc.data, deleted)) {
            problems.push(`${key} was restored as ${JSON.stringify(doc.data)}, not as it was before its delete: ${JSON.stringify(deleted)}`)
          }
          beforeDelete.delete(key)
          lastLive.set(key, doc.data)
        }
        return problems
      })
  }
}

const idsOf = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value : []) as ReadonlyArray<string>

/** Every page of a list, following its cursor. */
const everyPage = <E>(
  list: (
    params: Record<string, string>
  ) => Effect.Effect<{ readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null }, E>
) =>
  Effect.gen(function* () {
    const out: Array<JsonObject> = []
    let cursor: string | null = null
    do {
      const page: { readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null } = yield* list({
        limit: "100",
        ...(cursor === null ? {} : { cursor })
      })
      out.push(...page.data)
      cursor = page.next_cursor
    } while (cursor !== null)
    return out
  })

const sameSet = (a: ReadonlyArray<string>, b: Iterable<string>) => {
  const want = new Set(b)
  return new Set(a).size === want.size && a.every((id) => want.has(id))
}

/**
 * Associations never show a deleted record, and show every live one they hold: in every workspace
 * of the run, no deal (listed, in the trash, or expanded on a contact) shows a contact that is not
 * live, and no live contact's `deal_ids` or `deals` name a deal that is not live. Company links:
 * a contact shows exactly the live companies among its stored company_ids (its company_id when that
 * one is live, else null), a deal its stored company_id when live, else null; a company's derived
 * contact_ids and deal_ids are exactly the live contacts and deals naming it. An activity shows
 * exactly the live records among its stored links, and a contact's expand=activities exactly the
 * live activities linking it. What is live and what is stored is read from storage; the views through
 * the engine, as the API shows them.
 */
export const associationsHideDeleted: Invariant = invariant("associations never show a deleted record", (world) =>
  Effect.gen(function* () {
    const documents = yield* world.documents
    const problems: Array<string> = []
    for (const ctx of world.workspaces) {
      const live = (collection: string) =>
        new Set(
          documents.filter((d) => d.collection === collection && d.workspaceId === ctx.workspaceId && d.deletedAt === null).map((d) => d.id)
        )
      const contacts = live("contact")
      const deals = live("deal")
      const companies = live("company")
      const activities = live("activity")
      const stored = (collection: string, id: unknown) =>
        documents.find((d) => d.collection === collection && d.workspaceId === ctx.workspaceId && d.id === id)?.data ?? {}
      const liveOf = (ids: unknown, among: ReadonlySet<string>) => idsOf(ids).filter((id) => among.has(id))
      const showsLiveCompany = (where: string, deal: JsonObject) => {
        const held = stored("deal", deal["id"])["company_id"] ?? null
        const want = typeof held === "string" && companies.has(held) ? held : null
        if ((deal["company_id"] ?? null) !== want)
          problems.push(`${where}: deal ${deal["id"]} shows company_id ${deal["company_id"]}, not ${want}`)
      }
      const showsLiveContacts = (where: string, deal: JsonObject) => {
        const hidden = idsOf(deal["contact_ids"]).filter((id) => !contacts.has(id))
        if (hidden.length > 0) problems.push(`${where}: deal ${deal["id"]} shows contacts that are not live: ${hidden.join(", ")}`)
      }
      const listed = yield* Effect.orDie(everyPage((params) => world.engine.deals.list(ctx, params)))
      for (const deal of listed) {
        if (!deals.has(deal["id"] as string)) problems.push(`the deal list shows ${deal["id"]}, which is not live`)
        showsLiveContacts("the deal list", deal)
        showsLiveCompany("the deal list", deal)
      }
      const trash = yield* Effect.orDie(everyPage((params) => world.engine.trash.list(ctx, { type: "deal", ...params })))
      for (const item of trash) showsLiveContacts("the trash", item["record"] as JsonObject)
      for (const id of contacts) {
        const contact = yield* Effect.orDie(world.engine.contacts.get(ctx, id, "deals"))
        const named = [
          ...idsOf(contact.data["deal_ids"]),
          ...(contact.data["deals"] as ReadonlyArray<JsonObject>).map((d) => d["id"] as string)
        ]
        const gone = named.filter((dealId) => !deals.has(dealId))
        if (gone.length > 0) problems.push(`contact ${id} names deals that are not live: ${[...new Set(gone)].join(", ")}`)
        for (const deal of contact.data["deals"] as ReadonlyArray<JsonObject>) showsLiveContacts(`contact ${id}'s deals`, deal)
        const held = stored("contact", id)
        if (Object.hasOwn(held, "company_ids")) {
          const want = liveOf(held["company_ids"], companies)
          if (!sameSet(idsOf(contact.data["company_ids"]), want)) {
            problems.push(
              `contact ${id} shows companies ${JSON.stringify(contact.data["company_ids"])}, not the live ones it holds ${JSON.stringify(want)}`
            )
          }
          const primary = held["company_id"]
          const wantPrimary = typeof primary === "string" && companies.has(primary) ? primary : null
          if ((contact.data["company_id"] ?? null) !== wantPrimary)
            problems.push(`contact ${id} shows company_id ${contact.data["company_id"]}, not ${wantPrimary}`)
        }
        const expanded = yield* Effect.orDie(world.engine.contacts.get(ctx, id, "activities"))
        const shownActivities = (expanded.data["activities"] as ReadonlyArray<JsonObject>).map((a) => a["id"] as string)
        const linking = [...activities].filter((a) => idsOf(stored("activity", a)["contact_ids"]).includes(id))
        if (!sameSet(shownActivities, linking)) {
          problems.push(
            `contact ${id}'s activities are ${JSON.stringify(shownActivities)}, not the live ones linking it ${JSON.stringify(linking)}`
          )
        }
      }
      for (const id of companies) {
        const company = yield* Effect.orDie(world.engine.companies.get(ctx, id, null))
        const naming = [...contacts].filter((c) => idsOf(stored("contact", c)["company_ids"]).includes(id))
        const dealing = [...deals].filter((d) => stored("deal", d)["company_id"] === id)
        if (!sameSet(idsOf(company.data["contact_ids"]), naming)) {
          problems.push(
            `company ${id} shows contacts ${JSON.stringify(company.data["contact_ids"])}, not the live ones naming it ${JSON.stringify(naming)}`
          )
        }
        if (!sameSet(idsOf(company.data["deal_ids"]), dealing)) {
          problems.push(
            `company ${id} shows deals ${JSON.stringify(company.data["deal_ids"])}, not the live ones naming it ${JSON.stringify(dealing)}`
          )
        }
      }
      const listedActivities = yield* Effect.orDie(everyPage((params) => world.engine.activities.list(ctx, params)))
      for (const activity of listedActivities) {
        const held = stored("activity", activity["id"])
        for (const [link, among] of [
          ["contact_ids", contacts],
          ["deal_ids", deals],
          ["company_ids", companies]
        ] as const) {
          const want = liveOf(held[link], among)
          if (!sameSet(idsOf(activity[link]), want)) {
            problems.push(
              `activity ${activity["id"]} shows ${link} ${JSON.stringify(activity[link])}, not the live ones it holds ${JSON.stringify(want)}`
            )
          }
        }
      }
    }
    return problems
  })
)

/** A refused command changes nothing: no event is recorded by a step the engine refused. */
export const refusalsChangeNothing: Invariant = invariant("a refused command records nothing", (world) =>
  Effect.map(world.events, (events) => {
    const last = world.outcomes.at(-1)
    return last?.outcome === "refused" && events.length > world.eventsBefore
      ? [`the refused ${JSON.stringify(last.step)} recorded events`]
      : []
  })
)

/** Every invariant dealstream keeps, checked after every step. */
export const standardInvariants: ReadonlyArray<Invariant> = [
  refusalsChangeNothing,
  storedEqualsProjection,
  timelineChains,
  deleteThenRestoreIsIdentity,
  associationsHideDeleted
]

/** A live deal as an invariant of your own sees it, with the stage it sits in. */
export interface DealInStage {
  readonly deal: JsonObject
  readonly stage: { readonly id: string; readonly name: string } | undefined
  readonly pipeline: JsonObject | undefined
}

/**
 * An invariant over every live deal of the run (as storage holds it, custom fields included): `check`
 * returns what is wrong with one deal, or nothing.
 *
 * ```ts
 * const proposalsHaveValue = everyDeal("a deal in Proposal has a value", ({ deal, stage }) =>
 *   stage?.name === "Proposal" && deal.value === null ? "in Proposal without a value" : undefined)
 * ```
 */
export const everyDeal = (name: string, check: (deal: DealInStage) => string | undefined | void): Invariant =>
  invariant(name, (world) =>
    Effect.map(world.documents, (documents) => {
      const pipelines = documents.filter((d) => d.collection === "pipeline")
      return documents
        .filter((d) => d.collection === "deal" && d.deletedAt === null)
        .flatMap((doc) => {
          const pipeline = pipelines.find((p) => p.id === doc.data["pipeline_id"])?.data
          const stages = (pipeline?.["stages"] ?? []) as ReadonlyArray<{ readonly id: string; readonly name: string }>
          const problem = check({ deal: doc.data, stage: stages.find((s) => s.id === doc.data["stage_id"]), pipeline })
          return typeof problem === "string" ? [`deal ${doc.id}: ${problem}`] : []
        })
    })
  )
