import { mergedIntoOf } from "../../record/merge.js"
import { survivorsPatch } from "./mergeLinks.js"
import { Effect, Result } from "effect"
import type { Aggregate } from "../../aggregate.js"
import type { Projected } from "../../decider.js"
import { NotFound, type StorageUnavailable, type ValidationError } from "../../errors.js"
import type { CustomFieldDefinition } from "../../field/custom.js"
import type { JsonObject } from "../../json.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { Collection } from "../../storage/documents.js"
import type { DomainEvent } from "../../storage/events.js"
import type { EngineDeps } from "../base/deps.js"
import { type Catalogs, catalogs, type Settings } from "../base/settings.js"
import { storableBody, storableParams } from "../base/storable.js"
import { runBatch } from "../commands/batch.js"
import type { HandleOptions } from "../commands/commandOptions.js"
import type { Handled } from "../commands/decide.js"
import { handleCommand, type Write, write } from "../commands/handleCommand.js"
import { announcedRecord, outbox } from "../commands/outbox.js"
import type { IfMatch, ListParams, RecordBatch, RecordService, RequestContext, Versioned, WriteError } from "../contract/Engine.js"
import { historyPage } from "../views/history.js"
import type { TrashShown } from "./trash.js"
import type { ListSpec } from "../../query/parseListQuery.js"
import { listPage } from "../views/listPage.js"

/** Where a create or an update is decided: the record, the attempt's time, the workspace's settings. */
export interface CommandSite {
  readonly ctx: RequestContext
  readonly id: string
  readonly at: string
  readonly settings: Settings
}

/**
 * One record type as the generic service serves it: its aggregate, how a body is read, the commands
 * a create and an update make, and how its records are shown. A built-in record type writes its
 * own (engine/records/contacts.ts); a plug-in's is made from its descriptor (pluginRecords.ts).
 */
export interface RecordKind<C, E extends DomainEvent, S, F> {
  readonly aggregate: Aggregate<C, E, S>
  /** Its collection: the record's document, read and listed. */
  readonly collection: Collection
  /** Its catalog among the workspace's. */
  readonly catalog: (known: Catalogs) => FieldCatalog
  /** A create's and a patch's body, read against the workspace's custom field definitions. */
  readonly parse: {
    readonly create: (body: unknown, definitions: ReadonlyArray<CustomFieldDefinition>) => Result.Result<F, ValidationError>
    readonly patch: (body: unknown, definitions: ReadonlyArray<CustomFieldDefinition>) => Result.Result<F, ValidationError>
  }
  readonly commands: {
    /** `input` is the body as given, for the links it names. */
    readonly create: (site: CommandSite, parsed: F, input: unknown) => Effect.Effect<NoInfer<C>, WriteError>
    /** `current` is the record's document before the update. */
    readonly update: (
      site: CommandSite & { readonly current: Projected | null },
      parsed: F,
      input: unknown
    ) => Effect.Effect<NoInfer<C>, WriteError>
    readonly delete: (id: string, at: string) => NoInfer<C>
    /** `relink`: its links to records merged while it was in the trash, pointed at their survivors (mergeLinks.ts). */
    readonly restore: (id: string, at: string, relink: JsonObject) => NoInfer<C>
  }
  /** Records as the API shows them, read together: a list page, the trash, a write's answer, a payload. */
  readonly views: (
    ctx: RequestContext,
    rows: ReadonlyArray<{ readonly id: string; readonly data: JsonObject }>,
    catalog: FieldCatalog
  ) => Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable>
  /** A record just created, as the API shows it, where that needs no read (nothing can name it yet). */
  readonly createdView?: (id: string, data: JsonObject, catalog: FieldCatalog) => JsonObject
  /** Its list's own parameters and filters; a plain list by created_at, filtered, searched and sorted, when absent. */
  readonly list?: (
    ctx: RequestContext,
    params: ListParams,
    catalog: FieldCatalog
  ) => Effect.Effect<
    { readonly spec: Omit<ListSpec, "catalog">; readonly admit?: Effect.Effect<boolean, StorageUnavailable> },
    ValidationError
  >
  /** A unique field a batch upserts on, and the key a live record holding a value has. */
  readonly unique?: { readonly field: string; readonly key: (value: string) => string }
}

/** The default list: created_at first, every filter, search and sort its catalog allows. */
const plainList: Omit<ListSpec, "catalog"> = {
  scope: "live",
  baseWhere: { _tag: "True" },
  defaultSort: { field: { name: "created_at", type: "timestamp" }, direction: "asc" },
  allow: { filter: true, search: true, sort: true },
  extraParams: []
}

/** What a record command prepares on each attempt: the catalogs, and the body read by them. */
interface Prepared<F> {
  readonly known: Catalogs
  readonly parsed: F
}

/**
 * Every record type's plumbing, written once: create, update, upsert, batch, delete, restore,
 * history, a plain get and list, and the answer a write gives. Each write goes through the one
 * command handler with the outbox in its commit.
 */
export const makeRecordService = <C, E extends DomainEvent, S, F>(
  deps: EngineDeps,
  kind: RecordKind<C, E, S, F>
): RecordService & RecordBatch & { readonly writes: RecordWrites; readonly shown: TrashShown } => {
  const { aggregate } = kind
  const name = aggregate.name
  const view = (ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) =>
    Effect.map(kind.views(ctx, [{ id, data }], catalog), ([shown]) => shown!)

  /** What every command shares: its stream, the outbox announcing its events with the record shown. */
  const on = <P>(
    ctx: RequestContext,
    id: string,
    prepare: (settings: Settings) => Effect.Effect<P, WriteError>,
    adjust: (shown: JsonObject) => JsonObject = (shown) => shown
  ) => ({
    ctx,
    streamId: id,
    prepare,
    also: outbox(deps, ctx, aggregate, (data, known, event) => {
      const catalog = kind.catalog(known)
      return event.type === `${name}.created` && kind.createdView !== undefined
        ? Effect.succeed(kind.createdView(id, data, catalog))
        : Effect.map(view(ctx, id, data, catalog), adjust)
    })
  })

  const readBy =
    (parse: (body: unknown, definitions: ReadonlyArray<CustomFieldDefinition>) => Result.Result<F, ValidationError>, input: unknown) =>
    (settings: Settings): Effect.Effect<Prepared<F>, WriteError> =>
      Effect.flatMap(settings.catalogs, (known) => {
        const parsed = parse(input, known.defs)
        return Result.isFailure(parsed) ? Effect.fail(parsed.failure) : Effect.succeed({ known, parsed: parsed.success })
      })

  const catalogsOnly = (settings: Settings) => Effect.map(settings.catalogs, (known): Prepared<undefined> => ({ known, parsed: undefined }))

  /**
   * The record as the write that just committed left it: the view its announcement carries, made
   * before the commit, so the answer costs no read and a concurrent write cannot change it. A
   * write that committed nothing (a patch changing nothing) is shown now.
   */
  const written =
    (ctx: RequestContext, id: string) =>
    (handled: Handled<E, S> & { readonly prepared: Prepared<unknown> }): Effect.Effect<Versioned, WriteError> => {
      const announced = announcedRecord(handled.payloads, name)
      if (announced !== null) return Effect.succeed({ data: announced, version: handled.version })
      const projected = handled.projected
      if (projected === null) return Effect.fail(new NotFound({ resource: name, id }))
      return Effect.map(view(ctx, id, projected.data, kind.catalog(handled.prepared.known)), (data) => ({ data, version: handled.version }))
    }

  const writeOf = <P extends Prepared<unknown>>(options: HandleOptions<C, E, S, P>, ctx: RequestContext, id: string): Write<Versioned> =>
    write(deps, aggregate, options, written(ctx, id))

  /** A new record from a body already checked as storable text. */
  const createWrite = (ctx: RequestContext, input: unknown) =>
    Effect.map(deps.ids.make(aggregate.prefix), (id) =>
      writeOf(
        {
          ...on(ctx, id, readBy(kind.parse.create, input)),
          stream: "new",
          command: ({ at, prepared, settings }) => kind.commands.create({ ctx, id, at, settings }, prepared.parsed, input)
        },
        ctx,
        id
      )
    )

  const updateWrite = (ctx: RequestContext, id: string, input: unknown, ifMatch: IfMatch) =>
    writeOf(
      {
        ...on(ctx, id, readBy(kind.parse.patch, input)),
        ifMatch,
        command: ({ at, prepared, projected, settings }) =>
          kind.commands.update({ ctx, id, at, settings, current: projected }, prepared.parsed, input)
      },
      ctx,
      id
    )

  const { unique } = kind
  /** An upsert by the unique field: an update of the live record holding the value, or a create with it. */
  const upsertWrite = (ctx: RequestContext, value: string, data: JsonObject) =>
    Effect.flatMap(deps.storage.documentByUniqueKey(kind.collection, ctx.workspaceId, unique!.key(value)), (holder) =>
      holder === null
        ? Effect.map(createWrite(ctx, { [unique!.field]: value, ...data }), (planned) => ({ write: planned, created: true }))
        : Effect.succeed({ write: updateWrite(ctx, holder.id, data, null), created: false })
    )

  const get = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const doc = yield* deps.storage.getDocument(kind.collection, ctx.workspaceId, id)
      if (doc === null || doc.deletedAt !== null) return yield* new NotFound({ resource: name, id, ...mergedIntoOf(doc?.data) })
      return { data: yield* view(ctx, id, doc.data, kind.catalog(yield* catalogs(deps, ctx))), version: doc.version }
    })

  const list = (ctx: RequestContext, params: ListParams) =>
    Effect.gen(function* () {
      const catalog = kind.catalog(yield* catalogs(deps, ctx))
      const own = kind.list === undefined ? { spec: plainList } : yield* kind.list(ctx, yield* storableParams(params), catalog)
      const page = yield* listPage(deps, ctx, kind.collection, params, { ...own.spec, catalog }, own.admit)
      return { data: yield* kind.views(ctx, page.rows, catalog), next_cursor: page.next_cursor }
    })

  return {
    list,
    get,
    create: (ctx, body) => Effect.flatMap(storableBody(body), (input) => Effect.flatMap(createWrite(ctx, input), (planned) => planned.run)),
    update: (ctx, id, body, ifMatch) => Effect.flatMap(storableBody(body), (input) => updateWrite(ctx, id, input, ifMatch).run),
    delete: (ctx, id, ifMatch) =>
      Effect.asVoid(
        handleCommand(deps, aggregate, {
          ...on(ctx, id, catalogsOnly),
          ifMatch,
          command: ({ at }) => Effect.succeed(kind.commands.delete(id, at))
        })
      ),
    restore: (ctx, id) =>
      writeOf(
        {
          ...on(ctx, id, catalogsOnly),
          command: ({ at, projected }) =>
            Effect.map(survivorsPatch(deps, ctx, kind.collection, projected?.data ?? {}), (relink) => kind.commands.restore(id, at, relink))
        },
        ctx,
        id
      ).run,
    history: (ctx, id, params) =>
      Effect.flatMap(catalogs(deps, ctx), (known) => historyPage(deps, ctx, aggregate, id, params, kind.catalog(known))),
    batch: (ctx, body) =>
      runBatch(deps, ctx, body, {
        create: createWrite,
        update: (ctx, id, data) => updateWrite(ctx, id, data, null),
        ...(unique === undefined ? {} : { upsert: { field: unique.field, write: upsertWrite } })
      }),
    shown: { catalog: kind.catalog, views: kind.views },
    writes: { create: createWrite, update: updateWrite, commandOn: (ctx, id, adjust) => on(ctx, id, catalogsOnly, adjust), written, view }
  }
}

/** The service's writes, for a record type that adds commands of its own (a deal's stage move). */
export interface RecordWrites {
  readonly create: (ctx: RequestContext, input: unknown) => Effect.Effect<Write<Versioned>, StorageUnavailable>
  readonly update: (ctx: RequestContext, id: string, input: unknown, ifMatch: IfMatch) => Write<Versioned>
  /**
   * What a command of the record type's own shares with the others: its stream, the catalogs, the
   * outbox. `adjust`: the record as announced, from its view read before the commit (a merge's
   * survivor, whose derived links the same commit moves).
   */
  readonly commandOn: (
    ctx: RequestContext,
    id: string,
    adjust?: (shown: JsonObject) => JsonObject
  ) => Pick<HandleOptions<any, any, any, Prepared<undefined>>, "ctx" | "streamId" | "prepare" | "also">
  readonly written: (
    ctx: RequestContext,
    id: string
  ) => (handled: Handled<any, any> & { readonly prepared: Prepared<unknown> }) => Effect.Effect<Versioned, WriteError>
  readonly view: (ctx: RequestContext, id: string, data: JsonObject, catalog: FieldCatalog) => Effect.Effect<JsonObject, StorageUnavailable>
}
