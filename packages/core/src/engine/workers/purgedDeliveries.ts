import { Effect } from "effect"
import type { JsonObject } from "../../json.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { StreamAppend } from "../../storage/Storage.js"
import { deliveryCancellation } from "../commands/deliveryCancellation.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import type { Addition, AlsoContext } from "../commands/commandOptions.js"
import { queryAll } from "../base/reads.js"

/** What purged data reads as, in the log (storage writes it) and in the documents. */
const REDACTED: JsonObject = { redacted: true }

const ofRecord = (recordId: string) =>
  ({
    _tag: "Compare",
    field: { name: "event_stream_id", type: "id" },
    op: "eq",
    value: recordId
  }) as const

/**
 * What a purge erases in its own commit: the personal data of the record's earlier events, and of
 * the deliveries of those events, whose payloads carried the record as it was. Each such delivery's
 * events are redacted like the record's, its document keeps everything but the payload, and one
 * still pending (a schedule longer than the 30 days, or a retry never sent) is cancelled first: a
 * redacted delivery is never sent again, and a replay of it sends `{"redacted": true}`.
 */
export const purgedDeliveries =
  (deps: EngineDeps, ctx: RequestContext) =>
  ({ at, streamId }: AlsoContext<unknown>) =>
    Effect.gen(function* () {
      const deliveries = yield* queryAll(deps, "delivery", ctx.workspaceId, ofRecord(streamId))
      const streams: Array<StreamAppend> = []
      const documents: Array<DocumentWrite> = []
      for (const delivery of deliveries) {
        const cancelled = delivery.data["status"] === "pending" ? yield* deliveryCancellation(deps, ctx, delivery.id, at) : null
        if (cancelled !== null) streams.push(cancelled.stream)
        const document = cancelled?.document ?? { ...delivery, _tag: "Upsert" as const, uniqueKey: null, searchWords: [] }
        if (document._tag === "Remove") continue
        documents.push({ ...document, data: { ...document.data, payload_data: REDACTED } })
      }
      return { streams, documents, redactStreams: [streamId, ...deliveries.map((d) => d.id)] } satisfies Addition
    })
