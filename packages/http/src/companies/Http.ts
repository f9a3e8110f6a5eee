import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { batchRecords } from "../batch.js"
import { IdempotentReplies } from "../idempotency.js"
import { standardHandlers } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { record, respond } from "../replies.js"

const COLLECTION = "/v1/companies"

export const CompaniesLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "companies", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      const records = standardHandlers(idempotent, COLLECTION, engine.companies, (ctx, id) => engine.companies.get(ctx, id, null))
      return handlers
        .handle("list", records.list)
        .handle("get", ({ params, request }) =>
          Effect.gen(function* () {
            const query = yield* readQuery(request, ["expand"])
            return respond(record(yield* engine.companies.get(yield* Caller, params.id, query["expand"] ?? null)))
          })
        )
        .handleRaw("batch", batchRecords(idempotent, engine.companies.batch))
        .handleRaw("create", records.create)
        .handleRaw("update", records.update)
        .handle("delete", records.delete)
        .handle("restore", records.restore)
        .handle("history", records.history)
    })
  )
