import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleRecordResource, recordResourceHandlers } from "../recordGroups.js"
import { mergeRecords } from "../merge.js"
import { getExpandable, listRecords } from "../recordHandlers.js"
import { Company } from "./schemas.js"

export const CompaniesLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "companies", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const { companies } = engine
      const get = getExpandable(companies.get)
      const idempotent = yield* IdempotentReplies
      return handleRecordResource(
        handlers,
        recordResourceHandlers(idempotent, "/v1/companies", companies, get, { engine, object: "company", record: Company })
      )
        .handle("duplicates", listRecords(companies.duplicates))
        .handleRaw("merge", mergeRecords(idempotent, companies.merge))
        .handleRaw("unmerge", mergeRecords(idempotent, companies.unmerge))
    })
  )
