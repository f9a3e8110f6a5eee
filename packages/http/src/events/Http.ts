import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { readQuery } from "../request/queryParams.js"
import { json, respond } from "../replies.js"

export const EventsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "events", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      return handlers
        .handle("list", ({ request }) =>
          Effect.gen(function* () {
            const query = yield* readQuery(request, "all")
            const feed = yield* engine.events.list(yield* Caller, query)
            return respond(json({ data: feed.data, next_cursor: feed.next_cursor }))
          })
        )
        .handle("get", ({ params, request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            return respond(json(yield* engine.events.get(yield* Caller, params.id)))
          })
        )
    })
  )
