import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import type { DealRule } from "../../deal/rules.js"
import { dealRulesLayer, Engine } from "../../engine/contract/Engine.js"
import { EngineLive, type EngineRequirements } from "../../engine/EngineLive.js"
import { IdsLive } from "../../engine/contract/Ids.js"
import { WebhookConfig } from "../../engine/contract/WebhookConfig.js"
import { WebhookTransport, WebhookTransportUnavailable } from "../../engine/contract/WebhookTransport.js"
import type { DeliveryQueue } from "../../storage/DeliveryQueue.js"
import { Storage } from "../../storage/Storage.js"
import { START } from "../arbitraries/common.js"
import { type WorkspaceCommand, workspaceCommands } from "./commands.js"
import { executeCommand } from "./execute.js"
import { type Invariant, standardInvariants } from "./invariants.js"
import { makeWorld, type World } from "./world.js"

export interface ModelOptions<Step = WorkspaceCommand> {
  /** The storage the engine runs on, e.g. `MemoryStorage.layer` or `PgStorage.layer(url)`. */
  readonly storage: Layer.Layer<Storage | DeliveryQueue, unknown>
  /**
   * Build the storage for every run (the default: a shrunk counterexample replays on a storage of its
   * own), or once for the whole property (a database: every run has workspaces of its own anyway).
   */
  readonly storagePerRun?: boolean
  /**
   * The engine to test, given the storage, ids and (refusing) webhook services: EngineLive by default;
   * your own rules are registered here (`EngineLive.pipe(Layer.provide(DealRules.layer([rule])))`).
   */
  readonly engine?: Layer.Layer<Engine, never, EngineRequirements>
  /** Deal rules of your own to register with the engine (DealRules), the shortest way to test one. */
  readonly dealRules?: ReadonlyArray<DealRule>
  /** The command sequences to run: `workspaceCommands()` by default. */
  readonly commands?: fc.Arbitrary<ReadonlyArray<Step>>
  /** How one command runs against the world: `executeCommand` by default (for WorkspaceCommand). */
  readonly execute?: (world: World<Step>, step: Step) => Effect.Effect<void, unknown>
  /** How many workspaces each run has (default 1); commands name them by index. */
  readonly workspaces?: number
  /** Checked after every step: `standardInvariants` by default; add your own to them. */
  readonly invariants?: ReadonlyArray<Invariant>
  /** `"each step"` (the default) or `"last step"`: when the step invariants are checked. */
  readonly checkAfter?: "each step" | "last step"
  /** Called after each run that kept every invariant (coverage counts, say). */
  readonly afterRun?: (world: World<Step>) => Effect.Effect<void, unknown>
  /** fast-check's: runs (default 30), a seed and path to replay, sequences to try first. */
  readonly numRuns?: number
  readonly seed?: number
  readonly path?: string
  readonly examples?: ReadonlyArray<ReadonlyArray<Step>>
}

/** An invariant broken, or a command that failed otherwise than by a refusal: the run stops there. */
export class ModelViolation extends Error {
  constructor(
    readonly stepIndex: number,
    readonly invariant: string,
    readonly problems: ReadonlyArray<string>
  ) {
    super(
      `after command ${stepIndex + 1}, "${invariant}" does not hold:\n${problems
        .slice(0, 5)
        .map((p) => `  - ${p}`)
        .join("\n")}`
    )
  }
}

export type ModelResult<Step> =
  | { readonly failed: false; readonly numRuns: number }
  | {
      readonly failed: true
      readonly numRuns: number
      /** The shrunk sequence that breaks the invariant. */
      readonly counterexample: ReadonlyArray<Step>
      readonly numShrinks: number
      /** The broken invariant (or "command failed") with what it found wrong. */
      readonly violation: ModelViolation
      readonly seed: number
      readonly path: string
      /** A report to print: the sequence, one command a line, and what went wrong after which. */
      readonly report: string
    }

const noWebhookSending = Layer.merge(WebhookConfig.layer(), Layer.succeed(WebhookTransport, WebhookTransportUnavailable))

let runs = 0

/** Names no other run (of this process or of another at the same time) uses, so runs can share a database. */
const runNames = (workspaces: number) => {
  const tag = `${Date.now().toString(36)}${(++runs).toString(36)}${Math.random().toString(36).slice(2, 6)}`
  return {
    workspaces: Array.from({ length: workspaces }, (_, n) => ({ workspaceId: `model_${tag}_${n}`, requestId: null, actor: "model" })),
    keyDigest: (n: number) => bytesToHex(sha256(utf8ToBytes(`${tag}:${n}`)))
  }
}

/** A layer built in a memo map of its own: Effect 4 memoizes layers, and every run wants its own. */
const buildOwn = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Effect.flatMap(Scope.Scope, (scope) => Layer.buildWithMemoMap(layer, Layer.makeMemoMapUnsafe(), scope))

const oneRun = <Step>(options: ModelOptions<Step>, storage: Context.Context<Storage | DeliveryQueue> | null, steps: ReadonlyArray<Step>) =>
  Effect.gen(function* () {
    const services = storage ?? (yield* buildOwn(options.storage))
    const engineLayer = (options.engine ?? EngineLive).pipe(
      Layer.provide(dealRulesLayer(options.dealRules ?? [])),
      Layer.provide(Layer.succeedContext(services)),
      Layer.provide(IdsLive),
      Layer.provide(noWebhookSending)
    )
    const engine = Context.get(yield* buildOwn(engineLayer), Engine)
    const store = Context.get(services, Storage)
    yield* TestClock.setTime(START)
    const names = runNames(options.workspaces ?? 1)
    // Each workspace gets its default pipeline first (the first list does that), so that a command's
    // own reads record nothing and a refused command is seen to record nothing.
    for (const ctx of names.workspaces) yield* engine.pipelines.list(ctx)
    const { advance, world } = makeWorld<Step>(engine, store, names.workspaces, names.keyDigest, 2)
    const invariants = (options.invariants ?? standardInvariants).map((inv) => ({ ...inv, check: inv.start() }))
    const execute = options.execute ?? (executeCommand as unknown as NonNullable<ModelOptions<Step>["execute"]>)
    const last = steps.length - 1
    for (const [n, step] of steps.entries()) {
      world.eventsBefore = (yield* world.events).length
      const ran = yield* Effect.exit(execute(world, step))
      if (Exit.isFailure(ran))
        return yield* Effect.fail(new ModelViolation(n, "the command fails otherwise than by a refusal", [String(ran.cause)]))
      advance()
      for (const inv of invariants) {
        const due = inv.when === "end" ? n === last : options.checkAfter !== "last step" || n === last
        if (!due) continue
        const problems = yield* inv.check(world)
        if (problems.length > 0) return yield* Effect.fail(new ModelViolation(n, inv.name, problems))
      }
    }
    if (options.afterRun !== undefined) yield* options.afterRun(world)
  }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))

const reportOf = <Step>(steps: ReadonlyArray<Step>, violation: ModelViolation, numShrinks: number, seed: number, path: string) =>
  [
    `a model run broke an invariant; shrunk ${numShrinks} times to ${steps.length} command(s) (seed ${seed}, path "${path}"):`,
    ...steps.map((step, i) => `  ${i + 1}. ${JSON.stringify(step)}`),
    violation.message
  ].join("\n")

/**
 * The model-based runner: random command sequences against a fresh engine on the given storage, each
 * run in workspaces of its own and on a TestClock of its own (from 2026-01-01), the invariants
 * checked after every command. A failure is shrunk by fast-check to a short sequence, reported with
 * the seed and path that replay it.
 *
 * ```ts
 * const result = await checkModel({ storage: MemoryStorage.layer, invariants: [...standardInvariants, mine] })
 * if (result.failed) console.log(result.report)
 * ```
 */
export const checkModel = async <Step = WorkspaceCommand>(options: ModelOptions<Step>): Promise<ModelResult<Step>> => {
  const scope = Effect.runSync(Scope.make())
  try {
    const shared =
      options.storagePerRun === false
        ? ((await Effect.runPromise(Scope.provide(buildOwn(options.storage), scope))) as Context.Context<Storage | DeliveryQueue>)
        : null
    const commands =
      options.commands ?? (workspaceCommands({ workspaces: options.workspaces ?? 1 }) as unknown as fc.Arbitrary<ReadonlyArray<Step>>)
    /** One run: the violation it ends in, or null when every invariant held. */
    const violationOf = async (steps: ReadonlyArray<Step>): Promise<ModelViolation | null> => {
      const exit = await Effect.runPromiseExit(oneRun(options, shared, steps))
      if (Exit.isSuccess(exit)) return null
      const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { readonly error: unknown } | undefined
      return failure?.error instanceof ModelViolation ? failure.error : new ModelViolation(-1, "the run died", [String(exit.cause)])
    }
    const check = (parameters: fc.Parameters<[ReadonlyArray<Step>]>) =>
      fc.check(
        fc.asyncProperty(commands, async (steps) => {
          const violation = await violationOf(steps)
          if (violation !== null) throw violation
        }),
        parameters
      )
    const details = await check({
      numRuns: options.numRuns ?? 30,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path }),
      ...(options.examples === undefined ? {} : { examples: options.examples.map((e) => [e] as [ReadonlyArray<Step>]) })
    })
    if (!details.failed) return { failed: false, numRuns: details.numRuns }
    const first =
      details.errorInstance instanceof ModelViolation
        ? details.errorInstance
        : new ModelViolation(-1, "the property threw", [String(details.errorInstance)])
    const minimal = await minimize(details.counterexample?.[0] ?? [], first, violationOf, (example) =>
      check({ numRuns: 1, examples: [[example]] })
    )
    return {
      failed: true,
      numRuns: details.numRuns,
      counterexample: minimal.steps,
      numShrinks: details.numShrinks + minimal.shrinks,
      violation: minimal.violation,
      seed: details.seed,
      path: details.counterexamplePath ?? "",
      report: reportOf(
        minimal.steps,
        minimal.violation,
        details.numShrinks + minimal.shrinks,
        details.seed,
        details.counterexamplePath ?? ""
      )
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * fast-check's shrinking stops where no single smaller value still fails, which for a command
 * sequence often leaves commands that only mattered together with values it could not change at
 * once. From its counterexample: drop the commands after the one the invariant broke at, then every
 * command whose removal still breaks the same invariant, then let fast-check shrink again from
 * there; until nothing changes.
 */
const minimize = async <Step>(
  start: ReadonlyArray<Step>,
  violation: ModelViolation,
  violationOf: (steps: ReadonlyArray<Step>) => Promise<ModelViolation | null>,
  shrinkFrom: (steps: ReadonlyArray<Step>) => Promise<fc.RunDetails<[ReadonlyArray<Step>]>>
) => {
  let best = { steps: start, violation }
  let shrinks = 0
  const same = (found: ModelViolation | null): found is ModelViolation => found !== null && found.invariant === violation.invariant
  for (let round = 0; round < 4; round++) {
    const before = best.steps.length
    if (best.violation.stepIndex >= 0) best = { ...best, steps: best.steps.slice(0, best.violation.stepIndex + 1) }
    for (let i = best.steps.length - 1; i >= 0; i--) {
      const fewer = best.steps.filter((_, j) => j !== i)
      const found = await violationOf(fewer)
      if (same(found)) {
        best = { steps: found.stepIndex >= 0 ? fewer.slice(0, found.stepIndex + 1) : fewer, violation: found }
        i = Math.min(i, best.steps.length)
        shrinks++
      }
    }
    const again = await shrinkFrom(best.steps)
    const shrunk = again.counterexample?.[0]
    if (
      again.failed &&
      shrunk !== undefined &&
      again.errorInstance instanceof ModelViolation &&
      same(again.errorInstance) &&
      shrunk.length <= best.steps.length
    ) {
      shrinks += again.numShrinks
      best = { steps: shrunk, violation: again.errorInstance }
    }
    if (best.steps.length === before && again.numShrinks === 0) break
  }
  if (best.violation.stepIndex >= 0) best = { ...best, steps: best.steps.slice(0, best.violation.stepIndex + 1) }
  return { ...best, shrinks }
}

/** checkModel, throwing its report when an invariant breaks: for a test that should pass. */
export const assertModel = async <Step = WorkspaceCommand>(options: ModelOptions<Step>): Promise<void> => {
  const result = await checkModel(options)
  if (result.failed) throw new Error(result.report)
}
