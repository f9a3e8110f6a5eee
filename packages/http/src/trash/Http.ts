import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { listRecords } from "../recordHandlers.js"

export const TrashLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "trash", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      return handlers.handle("list", listRecords(engine.trash.list))
    })
  )
