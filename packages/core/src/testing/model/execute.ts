import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { apiKeyIdOf } from "../../apiKey/input.js"
import type { BatchAnswer, RequestContext } from "../../engine/contract/Engine.js"
import type { JsonObject } from "../../json.js"
import { MODEL_FIELDS, type WorkspaceCommand } from "./commands.js"
import type { Made, World } from "./world.js"

/** The refusals a command may meet: part of the run (a refusal must change nothing), not a failure of it. */
export const REFUSALS: ReadonlyArray<string> = ["NotFound", "ValidationError", "Conflict", "PreconditionFailed"]

/**
 * Runs a call that may be refused: records its outcome, counts it when accepted; any other failure
 * (storage unavailable, a defect) fails the run.
 */
export const attempt = <Step, A, E extends { readonly _tag: string }>(
  world: World<Step>,
  step: Step,
  kind: string,
  call: Effect.Effect<A, E>
) =>
  call.pipe(
    Effect.map((ok): A | null => ok),
    Effect.catchIf(
      (error) => REFUSALS.includes(error._tag),
      () => Effect.succeed(null)
    ),
    Effect.tap((ok) =>
      Effect.sync(() => {
        world.outcomes.push({ step, outcome: ok === null ? "refused" : "accepted" })
        if (ok !== null) world.accepted[kind] = (world.accepted[kind] ?? 0) + 1
      })
    )
  )

const pick = (ids: ReadonlyArray<string>, n: number, none: string) => (ids.length === 0 ? none : ids[n % ids.length]!)
/** Contacts to associate: none while the workspace has none (an unknown id is refused, and said so elsewhere). */
const pickAll = (ids: ReadonlyArray<string>, ns: ReadonlyArray<number>) => (ids.length === 0 ? [] : ns.map((n) => ids[n % ids.length]!))

/** Mostly the latest deletion, sometimes any record (a live one is refused). */
const toRestore = (deleted: ReadonlyArray<string>, all: ReadonlyArray<string>, target: number, none: string) =>
  target % 4 !== 0 && deleted.length > 0 ? deleted.at(-1)! : pick(all, target, none)

/** A contact's companies as a body sends them: company_ids, the first also company_id (the API's rule). */
const companiesOf = (made: Made, companies: ReadonlyArray<number> | null | undefined) => {
  if (companies === null || companies === undefined) return {}
  const ids = [...new Set(pickAll(made.companies, companies))]
  return { company_ids: ids }
}

/** A batch's answer recorded as one step: accepted when any operation applied. Created ids are kept. */
const recordBatch = (
  world: World<WorkspaceCommand>,
  command: WorkspaceCommand & { readonly atomic: boolean },
  answer: BatchAnswer | null,
  made: Array<string>
) =>
  Effect.gen(function* () {
    const applied = answer?.outcomes.filter((outcome) => outcome._tag === "Applied") ?? []
    if (command.atomic && answer !== null && applied.length > 0 && applied.length < answer.outcomes.length) {
      return yield* Effect.die(new Error(`an atomic batch applied ${applied.length} of ${answer.outcomes.length} operations`))
    }
    // A batch that applied nothing (refused whole, or atomic with one refusal) must record nothing.
    world.outcomes.push({ step: command, outcome: applied.length === 0 ? "refused" : "accepted" })
    if (applied.length > 0) world.accepted[command.kind] = (world.accepted[command.kind] ?? 0) + 1
    for (const outcome of applied) if (outcome.created) made.push(outcome.record.data["id"] as string)
  })

const batchAnswer = <E extends { readonly _tag: string }>(call: Effect.Effect<BatchAnswer, E>) =>
  call.pipe(
    Effect.map((ok): BatchAnswer | null => ok),
    Effect.catchIf(
      (error) => REFUSALS.includes(error._tag),
      () => Effect.succeed(null)
    )
  )

interface PipelineSeen {
  readonly id: string
  readonly name: string
  readonly stages: ReadonlyArray<{ readonly id: string; readonly name: string }>
}

const pipelinesOf = (world: World, ctx: RequestContext) =>
  Effect.map(
    world.engine.pipelines.list(ctx),
    (page): ReadonlyArray<PipelineSeen> =>
      page.data.map((p) => ({
        id: p["id"] as string,
        name: p["name"] as string,
        stages: (p["stages"] as ReadonlyArray<JsonObject>).map((s) => ({ id: s["id"] as string, name: s["name"] as string }))
      }))
  )

/**
 * Runs one WorkspaceCommand through the engine, naming records by index among those the run made
 * (restores mostly pick the latest deletion). Time moves on the run's TestClock: `tick` and `purge`
 * move it, and every command is followed by a millisecond, so no two share an instant.
 */
export const executeCommand = (world: World<WorkspaceCommand>, command: WorkspaceCommand) =>
  Effect.gen(function* () {
    const { engine } = world
    const i = "ws" in command ? command.ws % world.workspaces.length : 0
    const ctx = world.workspaces[i]!
    const made = world.made[i]!
    const run = <A, E extends { readonly _tag: string }>(call: Effect.Effect<A, E>) => attempt(world, command, command.kind, call)
    switch (command.kind) {
      case "tick":
        yield* TestClock.adjust(command.millis)
        world.outcomes.push({ step: command, outcome: "accepted" })
        break
      case "purge": {
        yield* TestClock.adjust(command.millis)
        const purged = yield* engine.purgeExpired
        world.accepted["purged"] = (world.accepted["purged"] ?? 0) + purged
        world.outcomes.push({ step: command, outcome: "accepted" })
        // A month later most deletions are purged: restores go back to picking at random.
        if (command.millis > 0) {
          for (const m of world.made) m.deletedContacts = m.deletedDeals = m.deletedCompanies = m.deletedActivities = []
        }
        break
      }
      case "defineField": {
        const { key, object } = MODEL_FIELDS[command.field % MODEL_FIELDS.length]!
        yield* run(engine.customFields.create(ctx, { object, key, label: key, type: command.type }))
        break
      }
      case "deleteField": {
        const { key, object } = MODEL_FIELDS[command.field % MODEL_FIELDS.length]!
        yield* run(engine.customFields.delete(ctx, object, key))
        break
      }
      case "createContact": {
        const created = yield* run(engine.contacts.create(ctx, { ...command.body, ...companiesOf(made, command.companies) }))
        if (created !== null) made.contacts.push(created.data["id"] as string)
        break
      }
      case "updateContact":
        yield* run(
          engine.contacts.update(
            ctx,
            pick(made.contacts, command.target, "con_none"),
            { ...command.body, ...companiesOf(made, command.companies) },
            null
          )
        )
        break
      case "deleteContact": {
        const id = pick(made.contacts, command.target, "con_none")
        if ((yield* run(engine.contacts.delete(ctx, id, null))) !== null) made.deletedContacts.push(id)
        break
      }
      case "restoreContact": {
        const id = toRestore(made.deletedContacts, made.contacts, command.target, "con_none")
        if ((yield* run(engine.contacts.restore(ctx, id))) !== null) made.deletedContacts = made.deletedContacts.filter((d) => d !== id)
        break
      }
      case "eraseContact": {
        const id = pick(made.contacts, command.target, "con_none")
        if ((yield* run(engine.contacts.erase(ctx, id))) !== null) made.deletedContacts = made.deletedContacts.filter((d) => d !== id)
        break
      }
      case "contactBatch": {
        const operations = command.operations.map((operation) =>
          operation.op === "create"
            ? { op: "create", data: operation.body }
            : operation.op === "update"
              ? { op: "update", id: pick(made.contacts, operation.target, "con_none"), data: operation.body }
              : { op: "upsert", match: { email: operation.email }, data: operation.body }
        )
        yield* recordBatch(
          world,
          command,
          yield* batchAnswer(engine.contacts.batch(ctx, { atomic: command.atomic, operations })),
          made.contacts
        )
        break
      }
      case "createCompany": {
        const created = yield* run(engine.companies.create(ctx, command.body))
        if (created !== null) made.companies.push(created.data["id"] as string)
        break
      }
      case "updateCompany":
        yield* run(engine.companies.update(ctx, pick(made.companies, command.target, "comp_none"), command.body, null))
        break
      case "deleteCompany": {
        const id = pick(made.companies, command.target, "comp_none")
        if ((yield* run(engine.companies.delete(ctx, id, null))) !== null) made.deletedCompanies.push(id)
        break
      }
      case "restoreCompany": {
        const id = toRestore(made.deletedCompanies, made.companies, command.target, "comp_none")
        if ((yield* run(engine.companies.restore(ctx, id))) !== null) made.deletedCompanies = made.deletedCompanies.filter((d) => d !== id)
        break
      }
      case "mergeContacts":
      case "mergeCompanies": {
        const [ids, none] = command.kind === "mergeContacts" ? [made.contacts, "con_none"] : [made.companies, "comp_none"]
        const service = command.kind === "mergeContacts" ? engine.contacts : engine.companies
        const survivor = pick(ids, command.target, none)
        const mergeIds = command.merged.map((i) => pick(ids, i, none))
        yield* run(service.merge(ctx, survivor, { merge_ids: mergeIds, dry_run: command.dryRun }))
        break
      }
      case "unmergeContact":
      case "unmergeCompany": {
        const contact = command.kind === "unmergeContact"
        const ids = contact ? made.contacts : made.companies
        const none = contact ? "con_none" : "comp_none"
        const service = contact ? engine.contacts : engine.companies
        const body = { [contact ? "contact_id" : "company_id"]: pick(ids, command.merged, none) }
        yield* run(service.unmerge(ctx, pick(ids, command.target, none), body))
        break
      }
      case "companyBatch": {
        const operations = command.operations.map((operation) =>
          operation.op === "create"
            ? { op: "create", data: operation.body }
            : operation.op === "update"
              ? { op: "update", id: pick(made.companies, operation.target, "comp_none"), data: operation.body }
              : { op: "upsert", match: { domain: operation.domain }, data: operation.body }
        )
        yield* recordBatch(
          world,
          command,
          yield* batchAnswer(engine.companies.batch(ctx, { atomic: command.atomic, operations })),
          made.companies
        )
        break
      }
      case "createActivity": {
        const body = {
          ...command.body,
          contact_ids: [...new Set(pickAll(made.contacts, command.contacts))],
          deal_ids: [...new Set(pickAll(made.deals, command.deals))],
          company_ids: [...new Set(pickAll(made.companies, command.companies))]
        }
        const created = yield* run(engine.activities.create(ctx, body))
        if (created !== null) made.activities.push(created.data["id"] as string)
        break
      }
      case "updateActivity": {
        const body = {
          ...command.body,
          ...(command.contacts === null ? {} : { contact_ids: [...new Set(pickAll(made.contacts, command.contacts))] }),
          ...(command.companies === null ? {} : { company_ids: [...new Set(pickAll(made.companies, command.companies))] })
        }
        yield* run(engine.activities.update(ctx, pick(made.activities, command.target, "act_none"), body, null))
        break
      }
      case "deleteActivity": {
        const id = pick(made.activities, command.target, "act_none")
        if ((yield* run(engine.activities.delete(ctx, id, null))) !== null) made.deletedActivities.push(id)
        break
      }
      case "restoreActivity": {
        const id = toRestore(made.deletedActivities, made.activities, command.target, "act_none")
        if ((yield* run(engine.activities.restore(ctx, id))) !== null)
          made.deletedActivities = made.deletedActivities.filter((d) => d !== id)
        break
      }
      case "createDeal": {
        const pipelines = yield* pipelinesOf(world, ctx)
        const pipeline = pipelines[command.pipeline % pipelines.length]
        const stages = pipeline?.stages ?? []
        const body = {
          name: "Deal",
          ...command.body,
          pipeline_id: pipeline?.id ?? "pipe_none",
          contact_ids: pickAll(made.contacts, command.contacts),
          ...(command.company === null || command.company === undefined
            ? {}
            : { company_id: pick(made.companies, command.company, "comp_none") }),
          ...(command.stage === null || stages.length === 0 ? {} : { stage_id: stages[command.stage % stages.length]!.id })
        }
        const created = yield* run(engine.deals.create(ctx, body))
        if (created !== null) made.deals.push(created.data["id"] as string)
        break
      }
      case "updateDeal": {
        const pipelines = yield* pipelinesOf(world, ctx)
        const stages = pipelines.flatMap((p) => p.stages)
        const body = {
          ...command.body,
          ...(command.contacts === null ? {} : { contact_ids: pickAll(made.contacts, command.contacts) }),
          ...(command.company === null || command.company === undefined
            ? {}
            : { company_id: pick(made.companies, command.company, "comp_none") }),
          ...(command.pipeline === null || pipelines.length === 0
            ? {}
            : { pipeline_id: pipelines[command.pipeline % pipelines.length]!.id }),
          ...(command.stage === null || stages.length === 0 ? {} : { stage_id: stages[command.stage % stages.length]!.id })
        }
        yield* run(engine.deals.update(ctx, pick(made.deals, command.target, "deal_none"), body, null))
        break
      }
      case "moveStage": {
        const id = pick(made.deals, command.target, "deal_none")
        const pipelines = yield* pipelinesOf(world, ctx)
        const current = command.own
          ? yield* Effect.map(Effect.option(engine.deals.get(ctx, id)), (deal) =>
              deal._tag === "Some" ? deal.value.data["pipeline_id"] : undefined
            )
          : undefined
        const own = pipelines.find((p) => p.id === current)
        const stages = own?.stages ?? pipelines.flatMap((p) => p.stages)
        const body = { stage_id: stages[command.stage % Math.max(stages.length, 1)]?.id ?? "stage_none", reason: command.reason }
        yield* run(engine.deals.moveStage(ctx, id, body, null))
        break
      }
      case "deleteDeal": {
        const id = pick(made.deals, command.target, "deal_none")
        if ((yield* run(engine.deals.delete(ctx, id, null))) !== null) made.deletedDeals.push(id)
        break
      }
      case "restoreDeal": {
        const id = toRestore(made.deletedDeals, made.deals, command.target, "deal_none")
        if ((yield* run(engine.deals.restore(ctx, id))) !== null) made.deletedDeals = made.deletedDeals.filter((d) => d !== id)
        break
      }
      case "createPipeline": {
        const stages = Array.from({ length: command.stages }, (_, n) => ({ name: `${command.name} ${n}` }))
        yield* run(engine.pipelines.create(ctx, { name: command.name, stages }))
        break
      }
      case "updatePipeline": {
        const pipelines = yield* pipelinesOf(world, ctx)
        const pipeline = pipelines[command.target % pipelines.length]
        if (pipeline === undefined) break
        const stages = pipeline.stages.map((s) => ({ id: s.id, name: s.name }))
        const body =
          command.change === "rename"
            ? { name: `${pipeline.name}!` }
            : command.change === "append"
              ? { stages: [...stages, { name: "Later" }] }
              : command.change === "reverse"
                ? { stages: stages.reverse() }
                : { stages: stages.slice(0, -1) }
        yield* run(engine.pipelines.update(ctx, pipeline.id, body, null))
        break
      }
      case "createKey":
        yield* run(engine.apiKeys.create({ workspaceId: ctx.workspaceId, keySha256: world.keyDigest(command.key), actor: "model" }))
        break
      case "revokeKey":
        yield* run(engine.apiKeys.revoke({ keyId: apiKeyIdOf(world.keyDigest(command.key)), actor: "model" }))
        break
    }
    // Distinct instants, so that nothing depends on two commands sharing a millisecond.
    yield* TestClock.adjust(1)
  })
