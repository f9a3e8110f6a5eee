import * as fc from "fast-check"
import { DAY, WORDS } from "../arbitraries/common.js"

/** A merge of made records (by index) into `target`, or only its dry run. */
type MergeOf<Kind extends string> = {
  readonly kind: Kind
  readonly ws: number
  readonly target: number
  readonly merged: ReadonlyArray<number>
  readonly dryRun: boolean
}

/** An unmerge of the made record `merged` (by index) from `target`. */
type UnmergeOf<Kind extends string> = { readonly kind: Kind; readonly ws: number; readonly target: number; readonly merged: number }

/** A command naming one made record (by index) and nothing else: a delete, a restore. */
type OnRecord<Kind extends string> = { readonly kind: Kind; readonly ws: number; readonly target: number }

/** A batch of one record type: creates, updates of made records (by index), upserts on its unique field `K`. */
type BatchCommand<Kind extends string, K extends string> = {
  readonly kind: Kind
  readonly ws: number
  readonly atomic: boolean
  readonly operations: ReadonlyArray<
    | { readonly op: "create"; readonly body: Body }
    | { readonly op: "update"; readonly target: number; readonly body: Body }
    | ({ readonly op: "upsert"; readonly body: Body } & { readonly [P in K]: string })
  >
}

/**
 * The commands a model run sends an engine, as data: records are named by an index into those the
 * run made so far (taken modulo their number when run), so every sequence means something in any
 * workspace, and a shrunk one still does. `ws` picks one of the run's workspaces (0 by default).
 */
export type WorkspaceCommand =
  | { readonly kind: "defineField"; readonly ws: number; readonly field: number; readonly type: FieldType }
  | { readonly kind: "deleteField"; readonly ws: number; readonly field: number }
  /** `companies`: made companies (by index) for company_ids, the first its company_id; absent or null sends none. */
  | { readonly kind: "createContact"; readonly ws: number; readonly body: Body; readonly companies?: ReadonlyArray<number> | null }
  | {
      readonly kind: "updateContact"
      readonly ws: number
      readonly target: number
      readonly body: Body
      readonly companies?: ReadonlyArray<number> | null
    }
  | OnRecord<"deleteContact">
  | OnRecord<"restoreContact">
  /** POST /v1/contacts/:id/erase: the purge now, live or in the trash, its links taken out of deals and activities. */
  | OnRecord<"eraseContact">
  /** POST /v1/contacts/batch: creates, updates of made contacts (by index) and upserts by email. */
  | BatchCommand<"contactBatch", "email">
  | {
      readonly kind: "createDeal"
      readonly ws: number
      readonly body: Body
      /** A pipeline of the workspace, and a stage of that pipeline (its first when null). */
      readonly pipeline: number
      readonly stage: number | null
      readonly contacts: ReadonlyArray<number>
      /** A made company (by index) for company_id; absent or null sends none. */
      readonly company?: number | null
    }
  | {
      readonly kind: "updateDeal"
      readonly ws: number
      readonly target: number
      readonly body: Body
      /** Any stage of the workspace (one of another pipeline is refused). */
      readonly stage: number | null
      readonly pipeline: number | null
      readonly contacts: ReadonlyArray<number> | null
      readonly company?: number | null
    }
  | {
      readonly kind: "moveStage"
      readonly ws: number
      readonly target: number
      /** A stage of the deal's own pipeline when `own`, else of all the workspace's stages. */
      readonly stage: number
      readonly own: boolean
      readonly reason: string | null
    }
  | OnRecord<"deleteDeal">
  | OnRecord<"restoreDeal">
  | { readonly kind: "createCompany"; readonly ws: number; readonly body: Body }
  | { readonly kind: "updateCompany"; readonly ws: number; readonly target: number; readonly body: Body }
  | OnRecord<"deleteCompany">
  | OnRecord<"restoreCompany">
  /** POST /v1/<records>/:id/merge: made records (by index) merged into `target`, or only tried (`dryRun`). */
  | MergeOf<"mergeContacts">
  | MergeOf<"mergeCompanies">
  /** POST /v1/<records>/:id/unmerge: a made record (by index) brought back from `target`. */
  | UnmergeOf<"unmergeContact">
  | UnmergeOf<"unmergeCompany">
  /** POST /v1/companies/batch: creates, updates of made companies (by index) and upserts by domain. */
  | BatchCommand<"companyBatch", "domain">
  /** Links name made records by index; with none at all the engine refuses the activity. */
  | {
      readonly kind: "createActivity"
      readonly ws: number
      readonly body: Body
      readonly contacts: ReadonlyArray<number>
      readonly deals: ReadonlyArray<number>
      readonly companies: ReadonlyArray<number>
    }
  | {
      readonly kind: "updateActivity"
      readonly ws: number
      readonly target: number
      readonly body: Body
      readonly contacts: ReadonlyArray<number> | null
      readonly companies: ReadonlyArray<number> | null
    }
  | OnRecord<"deleteActivity">
  | OnRecord<"restoreActivity">
  | { readonly kind: "createPipeline"; readonly ws: number; readonly name: string; readonly stages: number }
  | { readonly kind: "updatePipeline"; readonly ws: number; readonly target: number; readonly change: PipelineChange }
  | { readonly kind: "createKey"; readonly ws: number; readonly key: number }
  | { readonly kind: "revokeKey"; readonly key: number }
  | { readonly kind: "tick"; readonly millis: number }
  /** Time passes (past the 30-day window, or not), then the purge a host runs every hour. */
  | { readonly kind: "purge"; readonly millis: number }

export type FieldType = "text" | "number" | "boolean"
export type PipelineChange = "rename" | "append" | "reverse" | "dropLast"
export type Body = Readonly<Record<string, unknown>>

/** The custom fields a run defines, deletes and defines again (sometimes with another type). */
export const MODEL_FIELDS = [
  { object: "contact", key: "nick" },
  { object: "contact", key: "score" },
  { object: "deal", key: "region" },
  { object: "company", key: "tier" },
  { object: "activity", key: "outcome" }
] as const

const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null, freq: 4 })
const text = fc.constantFrom(...WORDS)
// Any JSON type for custom values: each fits one of the types a field may have at the time.
const customValue = fc.oneof(text, fc.constantFrom(0, 7, 2.5), fc.boolean(), fc.constant(null))
const email = fc
  .tuple(fc.constantFrom("ann", "Ann", "bob", "zoe", "kim", "lee"), fc.nat(5), fc.constantFrom("x.io", "X.io"))
  .map(([name, n, domain]) => `${name}${n}@${domain}`)

/** Standard fields, and now and then a custom one (refused while that field is not defined). */
const withCustom = (standard: fc.Arbitrary<Body>, keys: ReadonlyArray<string>): fc.Arbitrary<Body> =>
  fc
    .tuple(
      standard,
      fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.tuple(fc.constantFrom(...keys), customValue), weight: 1 })
    )
    .map(([body, custom]) => (custom === null ? body : { ...body, [custom[0]]: custom[1] }))

const contactBody = withCustom(
  fc.record({ email, first_name: maybe(text), last_name: maybe(text), title: maybe(text) }, { requiredKeys: [] }),
  ["nick", "score"]
)
const dealBody = withCustom(
  fc.record(
    {
      name: text,
      value: maybe(fc.constantFrom(0, 100, 2.5)),
      currency: maybe(fc.constantFrom("EUR", "USD")),
      expected_close_date: maybe(fc.constantFrom("2026-03-31", "2026-12-01")),
      status: fc.constantFrom("open", "won", "lost")
    },
    { requiredKeys: [] }
  ),
  ["region"]
)

// Few domains, two spellings of one: upserts, conflicts and restores into a taken domain happen.
const domain = fc.constantFrom("acme.io", "ACME.io", "globex.io", "initech.io")
const companyBody = withCustom(
  fc.record({ name: text, domain: maybe(domain), industry: maybe(text), size: maybe(fc.constantFrom(0, 12, 500)) }, { requiredKeys: [] }),
  ["tier"]
)
const activityBody = withCustom(
  fc.record(
    {
      type: fc.constantFrom("note", "task", "call", "meeting", "email"),
      subject: text,
      body: maybe(text),
      // Refused on notes, calls and emails: the engine must change nothing then.
      due_at: maybe(fc.constantFrom("2026-02-01T09:00:00Z", "2026-03-15T17:30:00+02:00")),
      done: fc.boolean()
    },
    { requiredKeys: [] }
  ),
  ["outcome"]
)
const links = fc.array(fc.nat(12), { maxLength: 2 })

export interface WorkspaceCommandOptions {
  /** How many workspaces the run has (default 1); the first gets three commands in four. */
  readonly workspaces?: number
  /** Relative weights by kind, over the defaults (0 leaves a kind out). */
  readonly weights?: Partial<Record<WorkspaceCommand["kind"], number>>
}

const DEFAULT_WEIGHTS: Record<WorkspaceCommand["kind"], number> = {
  defineField: 3,
  deleteField: 1,
  createContact: 6,
  updateContact: 3,
  deleteContact: 2,
  restoreContact: 2,
  // Opt in with `weights: { eraseContact: 1 }`: a kind added after seeded examples were written,
  // whose sequences a default weight would change (EVERY_KIND has one all the same).
  eraseContact: 0,
  contactBatch: 2,
  createCompany: 3,
  updateCompany: 2,
  deleteCompany: 1,
  restoreCompany: 1,
  // Opt in, as eraseContact: kinds added after the seeded examples (issue 28).
  mergeContacts: 0,
  unmergeContact: 0,
  mergeCompanies: 0,
  unmergeCompany: 0,
  companyBatch: 1,
  createActivity: 3,
  updateActivity: 2,
  deleteActivity: 1,
  restoreActivity: 1,
  createDeal: 4,
  updateDeal: 3,
  moveStage: 3,
  deleteDeal: 2,
  restoreDeal: 2,
  createPipeline: 1,
  updatePipeline: 1,
  createKey: 2,
  revokeKey: 2,
  tick: 2,
  purge: 2
}

/** One command of a model run (see WorkspaceCommand). */
export const workspaceCommand = (options: WorkspaceCommandOptions = {}): fc.Arbitrary<WorkspaceCommand> => {
  const count = Math.max(1, options.workspaces ?? 1)
  const ws =
    count === 1
      ? fc.constant(0)
      : fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: count - 1 }), weight: 1 })
  const target = fc.nat(12)
  const stage = fc.nat(12)
  const field = fc.nat(MODEL_FIELDS.length - 1)
  /** A batch of one record type: creates of `created` bodies, updates of made records, upserts as `upsert` makes them. */
  const batchOf = <Kind extends string, K extends string>(
    kind: Kind,
    body: fc.Arbitrary<Body>,
    created: fc.Arbitrary<Body>,
    upsert: fc.Arbitrary<{ readonly body: Body } & { readonly [P in K]: string }>
  ) =>
    fc.record({
      kind: fc.constant(kind),
      ws,
      atomic: fc.boolean(),
      operations: fc.array(
        fc.oneof(
          created.map((made) => ({ op: "create" as const, body: made })),
          fc.record({ op: fc.constant("update" as const), target, body }),
          upsert.map((made) => ({ op: "upsert" as const, ...made }))
        ),
        { minLength: 1, maxLength: 5 }
      )
    })
  const kinds: { readonly [K in WorkspaceCommand["kind"]]: fc.Arbitrary<Extract<WorkspaceCommand, { kind: K }>> } = {
    defineField: fc.record({ kind: fc.constant("defineField"), ws, field, type: fc.constantFrom<FieldType>("text", "number", "boolean") }),
    deleteField: fc.record({ kind: fc.constant("deleteField"), ws, field }),
    createContact: fc
      .record({ kind: fc.constant("createContact"), ws, body: contactBody, email, companies: maybe(links) })
      .map(({ email, ...c }) => ({ ...c, body: { email, ...c.body } })),
    updateContact: fc.record({ kind: fc.constant("updateContact"), ws, target, body: contactBody, companies: maybe(links) }),
    deleteContact: fc.record({ kind: fc.constant("deleteContact"), ws, target }),
    restoreContact: fc.record({ kind: fc.constant("restoreContact"), ws, target }),
    eraseContact: fc.record({ kind: fc.constant("eraseContact"), ws, target }),
    contactBatch: batchOf<"contactBatch", "email">(
      "contactBatch",
      contactBody,
      fc.tuple(contactBody, email).map(([body, address]) => ({ email: address, ...body })),
      fc.tuple(email, contactBody).map(([address, { email: _email, ...body }]) => ({ email: address, body }))
    ),
    createDeal: fc.record({
      kind: fc.constant("createDeal"),
      ws,
      body: dealBody,
      pipeline: fc.nat(3),
      stage: maybe(stage),
      contacts: fc.array(target, { maxLength: 3 }),
      company: maybe(target)
    }),
    updateDeal: fc.record({
      kind: fc.constant("updateDeal"),
      ws,
      target,
      body: dealBody,
      stage: maybe(stage),
      pipeline: fc.option(fc.nat(3), { nil: null, freq: 2 }),
      contacts: maybe(fc.array(target, { maxLength: 3 })),
      company: maybe(target)
    }),
    createCompany: fc
      .record({ kind: fc.constant("createCompany"), ws, body: companyBody, name: text })
      .map(({ name, ...c }) => ({ ...c, body: { name, ...c.body } })),
    updateCompany: fc.record({ kind: fc.constant("updateCompany"), ws, target, body: companyBody }),
    deleteCompany: fc.record({ kind: fc.constant("deleteCompany"), ws, target }),
    restoreCompany: fc.record({ kind: fc.constant("restoreCompany"), ws, target }),
    mergeContacts: fc.record({
      kind: fc.constant("mergeContacts"),
      ws,
      target,
      merged: fc.array(fc.nat(12), { minLength: 1, maxLength: 3 }),
      dryRun: fc.boolean()
    }),
    unmergeContact: fc.record({ kind: fc.constant("unmergeContact"), ws, target, merged: fc.nat(12) }),
    mergeCompanies: fc.record({
      kind: fc.constant("mergeCompanies"),
      ws,
      target,
      merged: fc.array(fc.nat(12), { minLength: 1, maxLength: 3 }),
      dryRun: fc.boolean()
    }),
    unmergeCompany: fc.record({ kind: fc.constant("unmergeCompany"), ws, target, merged: fc.nat(12) }),
    companyBatch: batchOf<"companyBatch", "domain">(
      "companyBatch",
      companyBody,
      fc.tuple(companyBody, text).map(([body, name]) => ({ name, ...body })),
      fc.tuple(domain, companyBody).map(([at, { domain: _domain, ...body }]) => ({ domain: at, body }))
    ),
    createActivity: fc
      .record({
        kind: fc.constant("createActivity"),
        ws,
        body: activityBody,
        type: fc.constantFrom("note", "task"),
        subject: text,
        contacts: links,
        deals: links,
        companies: links
      })
      .map(({ subject, type, ...c }) => ({ ...c, body: { type, subject, ...c.body } })),
    updateActivity: fc.record({
      kind: fc.constant("updateActivity"),
      ws,
      target,
      body: activityBody,
      contacts: maybe(links),
      companies: maybe(links)
    }),
    deleteActivity: fc.record({ kind: fc.constant("deleteActivity"), ws, target }),
    restoreActivity: fc.record({ kind: fc.constant("restoreActivity"), ws, target }),
    moveStage: fc.record({
      kind: fc.constant("moveStage"),
      ws,
      target,
      stage,
      own: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
      reason: maybe(text)
    }),
    deleteDeal: fc.record({ kind: fc.constant("deleteDeal"), ws, target }),
    restoreDeal: fc.record({ kind: fc.constant("restoreDeal"), ws, target }),
    createPipeline: fc.record({ kind: fc.constant("createPipeline"), ws, name: text, stages: fc.integer({ min: 1, max: 3 }) }),
    updatePipeline: fc.record({
      kind: fc.constant("updatePipeline"),
      ws,
      target: fc.nat(3),
      change: fc.constantFrom<PipelineChange>("rename", "append", "reverse", "dropLast")
    }),
    createKey: fc.record({ kind: fc.constant("createKey"), ws, key: fc.nat(1) }),
    revokeKey: fc.record({ kind: fc.constant("revokeKey"), key: fc.nat(1) }),
    tick: fc.record({ kind: fc.constant("tick"), millis: fc.integer({ min: 0, max: 3 * DAY }) }),
    purge: fc.record({ kind: fc.constant("purge"), millis: fc.oneof(fc.constant(0), fc.integer({ min: 29 * DAY, max: 32 * DAY })) })
  }
  const weights = { ...DEFAULT_WEIGHTS, ...options.weights }
  return fc.oneof(
    ...Object.entries(kinds)
      .filter(([kind]) => weights[kind as WorkspaceCommand["kind"]] > 0)
      .map(([kind, arbitrary]) => ({
        arbitrary: arbitrary as fc.Arbitrary<WorkspaceCommand>,
        weight: weights[kind as WorkspaceCommand["kind"]]
      }))
  )
}

/** Sequences of commands for one run (one workspace unless `workspaces` says more); shrinks to short ones. */
export const workspaceCommands = (
  options: WorkspaceCommandOptions & { readonly minLength?: number; readonly maxLength?: number } = {}
): fc.Arbitrary<ReadonlyArray<WorkspaceCommand>> =>
  fc.array(workspaceCommand(options), { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 40, size: "max" })

/**
 * A sequence in which every kind of command is accepted at least once: give it as an example, so
 * every run covers them whatever the random ones happen to do. Its `ws: 1` commands go to the
 * second workspace, or the first when the run has one (workspaces are taken modulo their number).
 */
export const EVERY_KIND: ReadonlyArray<WorkspaceCommand> = [
  { kind: "defineField", ws: 0, field: 0, type: "text" },
  { kind: "defineField", ws: 0, field: 2, type: "text" },
  { kind: "createContact", ws: 0, body: { email: "ann0@x.io", first_name: "Ann", nick: "sky blue" } },
  { kind: "createContact", ws: 0, body: { email: "bob1@x.io" } },
  { kind: "createCompany", ws: 0, body: { name: "Acme", domain: "acme.io", size: 12 } },
  { kind: "createCompany", ws: 0, body: { name: "Globex", domain: "globex.io" } },
  { kind: "updateContact", ws: 0, target: 1, body: {}, companies: [0, 1] },
  {
    kind: "createDeal",
    ws: 0,
    body: { name: "Pilot", value: 100, currency: "EUR", region: "Zoë" },
    pipeline: 0,
    stage: null,
    contacts: [0, 1],
    company: 0
  },
  {
    kind: "createActivity",
    ws: 0,
    body: { type: "task", subject: "Call", due_at: "2026-02-01T09:00:00Z" },
    contacts: [1],
    deals: [0],
    companies: [0]
  },
  { kind: "updateActivity", ws: 0, target: 0, body: { done: true }, contacts: null, companies: null },
  { kind: "updateCompany", ws: 0, target: 1, body: { industry: "Ann" } },
  {
    kind: "companyBatch",
    ws: 0,
    atomic: true,
    operations: [
      { op: "upsert", domain: "ACME.io", body: { size: 500 } },
      { op: "create", body: { name: "Initech", domain: "initech.io" } }
    ]
  },
  { kind: "deleteCompany", ws: 0, target: 0 },
  { kind: "restoreCompany", ws: 0, target: 0 },
  { kind: "deleteActivity", ws: 0, target: 0 },
  { kind: "restoreActivity", ws: 0, target: 0 },
  { kind: "moveStage", ws: 0, target: 0, stage: 2, own: true, reason: "call" },
  { kind: "updateDeal", ws: 0, target: 0, body: { value: 250 }, stage: 4, pipeline: null, contacts: null },
  { kind: "updateContact", ws: 0, target: 0, body: { title: "CTO", nick: null } },
  { kind: "createPipeline", ws: 0, name: "Ann", stages: 2 },
  { kind: "updatePipeline", ws: 0, target: 1, change: "append" },
  { kind: "deleteContact", ws: 0, target: 1 },
  { kind: "restoreContact", ws: 0, target: 1 },
  { kind: "mergeContacts", ws: 0, target: 0, merged: [1], dryRun: true },
  { kind: "mergeContacts", ws: 0, target: 0, merged: [1], dryRun: false },
  { kind: "unmergeContact", ws: 0, target: 0, merged: 1 },
  { kind: "mergeCompanies", ws: 0, target: 0, merged: [1], dryRun: false },
  { kind: "unmergeCompany", ws: 0, target: 0, merged: 1 },
  { kind: "deleteDeal", ws: 0, target: 0 },
  { kind: "restoreDeal", ws: 0, target: 1 },
  { kind: "deleteField", ws: 0, field: 0 },
  { kind: "defineField", ws: 0, field: 0, type: "number" },
  { kind: "createKey", ws: 0, key: 0 },
  { kind: "createKey", ws: 1, key: 1 },
  { kind: "revokeKey", key: 0 },
  { kind: "deleteContact", ws: 0, target: 0 },
  { kind: "deleteCompany", ws: 0, target: 1 },
  { kind: "deleteActivity", ws: 0, target: 0 },
  { kind: "tick", millis: DAY },
  { kind: "purge", millis: 31 * DAY },
  { kind: "createContact", ws: 1, body: { email: "ann0@x.io" } },
  { kind: "deleteDeal", ws: 0, target: 0 },
  { kind: "eraseContact", ws: 0, target: 1 }
]
