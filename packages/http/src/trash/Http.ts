import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { readQuery } from "../request/queryParams.js"
import { page, respond } from "../responses.js"

export const TrashLive = HttpApiBuilder.group(Api, "trash", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    return handlers.handle("list", ({ request }) =>
      Effect.gen(function*() {
        const query = yield* readQuery(request, "all")
        return respond(page(yield* engine.trash.list(yield* Caller, query)))
      }))
  }))
