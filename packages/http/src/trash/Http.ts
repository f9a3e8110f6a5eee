import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { listRecords } from "../recordHandlers.js"

export const TrashLive = HttpApiBuilder.group(Api, "trash", (handlers) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    return handlers.handle("list", listRecords(engine.trash.list))
  })
)
