import { Effect, Result } from "effect"
import { NotFound } from "../../errors.js"
import { recoveryAggregate, recoveryView } from "../../recovery/index.js"
import { parseRecoverBody, webhookAggregate, type WebhookEvent } from "../../webhook/index.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import type { Addition, AlsoContext } from "../commands/commandOptions.js"
import { decide, newStream } from "../commands/decide.js"
import { handleCommand } from "../commands/handleCommand.js"
import { jobOf } from "../workers/recoveryRunner.js"
import { storableBody } from "../base/storable.js"

/** The API's side: starting a job and reading it. */
export const makeWebhookRecoveries = (deps: EngineDeps) => {
  const webhookOf = (ctx: RequestContext, webhookId: string) =>
    Effect.flatMap(deps.storage.getDocument("webhook", ctx.workspaceId, webhookId), (doc) =>
      doc === null ? Effect.fail(new NotFound({ resource: "webhook", id: webhookId })) : Effect.succeed(doc)
    )

  /**
   * The job's stream, added to the commit that records `webhook.recovery_started` (by a recover
   * request or a PATCH with recover_since): the job exists exactly when the webhook names it.
   */
  const recoveryStartedIn = (ctx: RequestContext, jobId: string, webhookId: string) => (context: AlsoContext<WebhookEvent>) =>
    Effect.gen(function* () {
      const started = context.fresh.find(({ event }) => event.type === "webhook.recovery_started")?.event
      if (started?.type !== "webhook.recovery_started") return { streams: [], documents: [] } satisfies Addition
      const decided = yield* decide(deps, recoveryAggregate, newStream(recoveryAggregate, ctx, jobId), {
        type: "StartRecovery",
        id: jobId,
        at: context.at,
        webhookId,
        since: started.data.since
      }).pipe(Effect.orDie)
      return { streams: [decided.append], documents: [] } satisfies Addition
    })

  const get = (ctx: RequestContext, webhookId: string, jobId: string) =>
    Effect.gen(function* () {
      yield* webhookOf(ctx, webhookId)
      const { job, version } = yield* jobOf(deps.storage, ctx, jobId)
      if (job === null || job.webhookId !== webhookId) return yield* new NotFound({ resource: "recovery", id: jobId })
      return { data: recoveryView(job), version }
    })

  const start = (ctx: RequestContext, webhookId: string, body: unknown) =>
    Effect.gen(function* () {
      const parsed = parseRecoverBody(yield* storableBody(body), { allowInsecure: deps.webhooks.config.allowInsecure })
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const jobId = yield* deps.ids.make(recoveryAggregate.prefix)
      yield* handleCommand(deps, webhookAggregate, {
        ctx,
        streamId: webhookId,
        command: ({ at }) =>
          Effect.succeed({ type: "StartWebhookRecovery" as const, id: webhookId, at, recoveryId: jobId, since: parsed.success.since }),
        also: recoveryStartedIn(ctx, jobId, webhookId)
      })
      return yield* get(ctx, webhookId, jobId)
    })

  return { start, get, recoveryStartedIn }
}
