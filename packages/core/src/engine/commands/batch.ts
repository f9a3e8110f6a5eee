import { Context, Effect, Option, Result } from "effect"
import { Conflict, type DomainError, type StorageUnavailable, ValidationError } from "../../errors.js"
import { isJsonObject, type JsonObject } from "../../json.js"
import type { ProjectionFailed } from "../../storage/inlineProjection.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import type { BatchAnswer, BatchOutcome, RequestContext, Versioned, WriteError } from "../contract/Engine.js"
import { MAX_ATTEMPTS, type PlannedWrite, sharedCommit, type Write } from "./handleCommand.js"
import { claimWrite } from "./idempotencyClaim.js"
import { settingsOf } from "../base/settings.js"
import { storableBody } from "../base/storable.js"

/** The most operations one batch may hold (the HTTP API answers 413 beyond). */
export const MAX_BATCH_OPERATIONS = 100

export type BatchOperation =
  | { readonly op: "create"; readonly data: JsonObject }
  | { readonly op: "update"; readonly id: string; readonly data: JsonObject }
  | { readonly op: "upsert"; readonly match: string; readonly data: JsonObject }

/** How one record type makes the writes of a batch; `upsert` only for a type with a unique key. */
export interface BatchWrites {
  readonly create: (ctx: RequestContext, data: JsonObject) => Effect.Effect<Write<Versioned>, WriteError>
  readonly update: (ctx: RequestContext, id: string, data: JsonObject) => Write<Versioned>
  readonly upsert?: {
    /** The field `match` names (contacts: `email`). */
    readonly field: string
    /** The write an upsert is: an update of the live record holding the key, or a create. */
    readonly write: (
      ctx: RequestContext,
      match: string,
      data: JsonObject
    ) => Effect.Effect<{ readonly write: Write<Versioned>; readonly created: boolean }, WriteError>
  }
}

const at = (index: number, path: string, message: string) => ({ path: `operations[${index}]${path}`, message })

/** The body `{operations: [...], atomic?}`, every problem of it at once; nothing runs unless all of it is well formed. */
export const parseBatch = (
  body: unknown,
  writes: BatchWrites
): Result.Result<{ readonly atomic: boolean; readonly operations: ReadonlyArray<BatchOperation> }, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(ValidationError.at("", "must be an object with operations"))
  const problems: Array<{ readonly path: string; readonly message: string }> = []
  for (const key of Object.keys(body))
    if (key !== "operations" && key !== "atomic") problems.push({ path: key, message: "is not a known field" })
  const atomic = body["atomic"] ?? false
  if (typeof atomic !== "boolean") problems.push({ path: "atomic", message: "must be true or false" })
  const raw = body["operations"]
  if (!Array.isArray(raw))
    return Result.fail(ValidationError.of([...problems, { path: "operations", message: "must be an array of 1 to 100 operations" }]))
  if (raw.length === 0 || raw.length > MAX_BATCH_OPERATIONS) problems.push({ path: "operations", message: "must hold 1 to 100 operations" })
  const operations: Array<BatchOperation> = []
  raw.forEach((item, i) => {
    if (!isJsonObject(item)) {
      problems.push(at(i, "", "must be an object with op and data"))
      return
    }
    const known = ["op", "data", "id", "match"]
    for (const key of Object.keys(item)) if (!known.includes(key)) problems.push(at(i, `.${key}`, "is not a known field"))
    const data = item["data"]
    if (!isJsonObject(data)) problems.push(at(i, ".data", "must be an object"))
    const op = item["op"]
    const id = item["id"]
    const match = item["match"]
    if (op === "create") {
      if (id !== undefined) problems.push(at(i, ".id", "is not taken by create (ids are made by the server)"))
      if (match !== undefined) problems.push(at(i, ".match", "is taken by upsert only"))
      if (isJsonObject(data)) operations.push({ op, data })
    } else if (op === "update") {
      if (typeof id !== "string" || id.length === 0) problems.push(at(i, ".id", "is required by update: the id of the record"))
      if (match !== undefined) problems.push(at(i, ".match", "is taken by upsert only"))
      if (isJsonObject(data) && typeof id === "string") operations.push({ op, id, data })
    } else if (op === "upsert") {
      const field = writes.upsert?.field
      if (field === undefined) {
        problems.push(at(i, ".op", "must be create or update: this record type has no unique key to upsert on"))
        return
      }
      if (id !== undefined) problems.push(at(i, ".id", "is not taken by upsert (it matches on match)"))
      const value = isJsonObject(match) ? match[field] : undefined
      if (!isJsonObject(match) || Object.keys(match).some((key) => key !== field) || typeof value !== "string" || value.length === 0) {
        problems.push(at(i, ".match", `must be {"${field}": "…"}`))
      } else if (
        isJsonObject(data) &&
        data[field] !== undefined &&
        (typeof data[field] !== "string" || data[field].toLowerCase() !== value.toLowerCase())
      ) {
        problems.push(at(i, `.data.${field}`, `must be absent or the match's ${field}`))
      } else if (isJsonObject(data)) operations.push({ op, match: value, data })
    } else {
      problems.push(at(i, ".op", writes.upsert === undefined ? "must be create or update" : "must be create, update or upsert"))
    }
  })
  return problems.length > 0 ? Result.fail(ValidationError.of(problems)) : Result.succeed({ atomic: atomic === true, operations })
}

/** An operation's error with its paths under `operations[i].data`, as a single request's are under the body. */
const underOperation = (index: number, error: WriteError): WriteError => {
  const under = (path: string) => `operations[${index}].data${path === "" ? "" : `.${path}`}`
  if (error._tag === "ValidationError") return ValidationError.of(error.details.map((detail) => ({ ...detail, path: under(detail.path) })))
  if (error._tag === "Conflict")
    return new Conflict({ message: error.message, details: error.details.map((detail) => ({ ...detail, path: under(detail.path) })) })
  return error
}

/**
 * Which operations touch one record, so a batch that is not atomic applies them in request order:
 * an update by its id, an upsert by its key; a create touches a record of its own.
 */
const recordOf = (operation: BatchOperation, index: number) =>
  operation.op === "update" ? `id:${operation.id}` : operation.op === "upsert" ? `key:${operation.match.toLowerCase()}` : `new:${index}`

const writeOf = (ctx: RequestContext, writes: BatchWrites, operation: BatchOperation) =>
  Effect.gen(function* () {
    if (operation.op === "create") return { write: yield* writes.create(ctx, operation.data), created: true }
    if (operation.op === "update") return { write: writes.update(ctx, operation.id, operation.data), created: false }
    return yield* writes.upsert!.write(ctx, operation.match, operation.data)
  })

/**
 * Each operation as its own write, committed as group commit gathers them: operations on one
 * record in request order, the others at once. An upsert that loses the race to create its key
 * updates the record that won.
 *
 * Under an Idempotency-Key, the key's claim rides on the first operation that commits, and on no
 * other: the operations run one by one until one has committed with it, then the rest at once. A
 * retry after a host stopped mid-batch then finds the claim exactly when something was applied,
 * as when every operation carried it; but 100 commits each rewriting the key's one row cost the
 * keyed batch 2.5 times the PostgreSQL CPU of an unkeyed one (import bench, issue 34).
 */
const eachAlone = (deps: EngineDeps, ctx: RequestContext, writes: BatchWrites, operations: ReadonlyArray<BatchOperation>) =>
  Effect.gen(function* () {
    const outcomes: Array<BatchOutcome> = new Array(operations.length)
    const { idempotency: claim, ...unclaimed } = ctx
    const one = (i: number, under: RequestContext = unclaimed) =>
      Effect.gen(function* () {
        const operation = operations[i]!
        const attempt = Effect.flatMap(writeOf(under, writes, operation), ({ created, write }) =>
          Effect.map(write.run, (record): BatchOutcome => ({ _tag: "Applied", created, record }))
        )
        const raced =
          operation.op === "upsert"
            ? Effect.catchIf(
                attempt,
                (error) => error._tag === "Conflict",
                () => attempt
              )
            : attempt
        outcomes[i] = yield* raced.pipe(
          Effect.catch((error) =>
            error._tag === "StorageUnavailable"
              ? Effect.fail(error)
              : Effect.succeed<BatchOutcome>({ _tag: "Failed", error: underOperation(i, error) })
          )
        )
      })
    let first = 0
    if (claim !== undefined) {
      while (first < operations.length) {
        const i = first++
        yield* one(i, ctx)
        // An applied operation that changed nothing committed nothing, its claim with it.
        if (outcomes[i]!._tag === "Applied" && (yield* deps.storage.getDocument("idempotency", ctx.workspaceId, claim.key)) !== null) break
      }
    }
    const groups = new Map<string, Array<number>>()
    for (let i = first; i < operations.length; i++) {
      const record = recordOf(operations[i]!, i)
      groups.set(record, [...(groups.get(record) ?? []), i])
    }
    yield* Effect.forEach(groups.values(), (indexes) => Effect.forEach(indexes, (i) => one(i), { discard: true }), {
      concurrency: "unbounded",
      discard: true
    })
    return outcomes
  })

const failedAt = (count: number, index: number, error: WriteError): ReadonlyArray<BatchOutcome> =>
  Array.from(
    { length: count },
    (_, i): BatchOutcome => (i === index ? { _tag: "Failed", error } : { _tag: "NotApplied", failedIndex: index })
  )

/**
 * Every operation in one commit, or none: each is decided on its record as stored now, and the
 * first that is refused leaves the others undone. A batch naming one record twice is refused as a
 * whole: its operations would be decided on the same version.
 */
const allOrNothing = (deps: EngineDeps, ctx: RequestContext, writes: BatchWrites, operations: ReadonlyArray<BatchOperation>) =>
  Effect.gen(function* () {
    // One claim of the key for the whole batch, in its one commit; none per operation.
    const { idempotency: claim, ...unclaimed } = ctx
    for (let attempt = 1; ; attempt++) {
      const settings = settingsOf(deps.storage, deps.settings, ctx, true)
      const planned: Array<{ readonly created: boolean; readonly write: PlannedWrite<Versioned> }> = []
      const streams = new Map<string, number>()
      for (let i = 0; i < operations.length; i++) {
        const made = yield* Effect.result(writeOf(unclaimed, writes, operations[i]!))
        if (Result.isFailure(made)) {
          const error = made.failure
          if (error._tag === "StorageUnavailable") return yield* Effect.fail(error)
          return failedAt(operations.length, i, underOperation(i, error))
        }
        const earlier = streams.get(made.success.write.streamId)
        if (earlier !== undefined) {
          return yield* ValidationError.at(
            `operations[${i}]`,
            `writes the record operation ${earlier} writes: an atomic batch writes each record once`
          )
        }
        streams.set(made.success.write.streamId, i)
        const plan = yield* Effect.result(made.success.write.plan(settings))
        if (Result.isFailure(plan)) {
          const error = plan.failure
          if (error._tag === "StorageUnavailable") return yield* Effect.fail(error)
          return failedAt(operations.length, i, underOperation(i, error))
        }
        planned.push({ created: made.success.created, write: plan.success })
      }
      const commits = planned.flatMap(({ write }) => (write.commit === null ? [] : [write.commit]))
      const claimed =
        claim !== undefined && commits.length > 0 ? [claimWrite(ctx.workspaceId, claim, { resource: "batch", id: "" }, yield* nowIso)] : []
      if (commits.length > 0) {
        const merged = sharedCommit(commits)
        const stored = yield* Effect.result(deps.storage.commit({ ...merged, documents: [...merged.documents, ...claimed] }))
        if (Result.isFailure(stored)) {
          const error = stored.failure
          if (error._tag === "VersionConflict") {
            if (error.streamId.startsWith("settings:")) deps.settings.delete(ctx.workspaceId)
            if (attempt < MAX_ATTEMPTS) continue
            return yield* new Conflict({ message: "the batch's records are being changed concurrently; retry the request", details: [] })
          }
          if (error._tag === "UniqueViolation") {
            const index = planned.findIndex(
              ({ write }) =>
                write.commit?.documents.some(
                  (doc) => doc._tag === "Upsert" && doc.collection === error.collection && doc.uniqueKey === error.uniqueKey
                ) === true
            )
            const refusal: DomainError =
              index < 0
                ? new Conflict({ message: `a unique key is already taken by ${error.existingId}`, details: [] })
                : planned[index]!.write.uniqueKeyTaken(error)
            return failedAt(operations.length, Math.max(0, index), underOperation(Math.max(0, index), refusal))
          }
          return yield* error
        }
      }
      yield* Effect.forEach(planned, ({ write }) => write.stored, { discard: true })
      // Stored: an answer that cannot be made now (the storage gone) still reports the operation's error.
      return yield* Effect.forEach(planned, ({ created, write }, i) =>
        Effect.map(
          Effect.result(write.answer),
          (answer): BatchOutcome =>
            Result.isSuccess(answer)
              ? { _tag: "Applied", created, record: answer.success }
              : { _tag: "Failed", error: underOperation(i, answer.failure) }
        )
      )
    }
  })

/**
 * POST /v1/<records>/batch: up to 100 creates, updates and upserts, each answered as the single
 * request would have been; with `atomic`, all of them in one commit or none.
 */
export const runBatch = (
  deps: EngineDeps,
  ctx: RequestContext,
  body: unknown,
  writes: BatchWrites
): Effect.Effect<BatchAnswer, ValidationError | Conflict | ProjectionFailed | StorageUnavailable> =>
  Effect.gen(function* () {
    const parsed = parseBatch(yield* storableBody(body), writes)
    if (Result.isFailure(parsed)) return yield* parsed.failure
    const { atomic, operations } = parsed.success
    const outcomes = atomic ? yield* allOrNothing(deps, ctx, writes, operations) : yield* eachAlone(deps, ctx, writes, operations)
    return { atomic, outcomes }
  })
