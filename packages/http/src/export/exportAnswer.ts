import {
  type JsonObject,
  type ListParams,
  type Page,
  type RequestContext,
  type StorageUnavailable,
  ValidationError
} from "@dealstream/core"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect, Exit, Scope, Stream } from "effect"
import { Caller } from "../auth/Authentication.js"
import type { ExportedAs } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { csvLine, csvRow, standardColumns } from "./csv.js"

/** The response header holding the change feed cursor of the export's state. */
export const FEED_CURSOR = "dealstream-feed-cursor"

/** What an export takes of a list's parameters: all but paging and order. */
const NOT_TAKEN = ["limit", "cursor", "sort"]

const encoder = new TextEncoder()

/** Whether the client asked for CSV; anything else gets JSON lines. */
const wantsCsv = (request: HttpServerRequest.HttpServerRequest) => /\btext\/csv\b/i.test(request.headers["accept"] ?? "")

/**
 * GET /v1/<records>/export: every live record its list would show for these parameters, from one
 * state of the storage, streamed as JSON lines (one record per line, as its list shows it) or CSV,
 * with `Dealstream-Feed-Cursor`: reading the change feed after it gives exactly the changes the
 * export does not hold. The records are read as the client takes them (engine's exportRecords), and
 * the state is let go when the last is sent or the client goes away.
 */
export const exportAnswer =
  (
    list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>,
    { engine, object, record }: ExportedAs
  ) =>
  ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
    Effect.gen(function* () {
      const params = yield* readQuery(request, "all")
      const refused = NOT_TAKEN.filter((name) => params[name] !== undefined)
      if (refused.length > 0) {
        return yield* ValidationError.of(
          refused.map((path) => ({ path, message: "is not a parameter of an export (it has every record, in the list's order)" }))
        )
      }
      const ctx = yield* Caller
      const csv = wantsCsv(request)
      const customKeys =
        csv && object !== null
          ? (yield* engine.customFields.list(ctx, object)).data.map((definition) => String(definition["key"])).sort()
          : []
      const columns = [...standardColumns(record), ...customKeys]
      // The export's state lives until the body is sent: its scope closes with the stream.
      const scope = yield* Scope.make()
      const encode = (page: ReadonlyArray<JsonObject>) =>
        encoder.encode(csv ? page.map((row) => csvRow(columns, row)).join("") : page.map((row) => `${JSON.stringify(row)}\n`).join(""))
      const started = yield* Effect.exit(Scope.provide(engine.exportRecords(ctx, list, params, encode), scope))
      if (Exit.isFailure(started)) {
        yield* Scope.close(scope, started)
        return yield* Effect.failCause(started.cause)
      }
      const { cursor, pages } = started.value
      const body = Stream.concat(csv ? Stream.make(encoder.encode(csvLine(columns))) : Stream.empty, pages).pipe(
        Stream.ensuring(Scope.close(scope, Exit.void))
      )
      return HttpServerResponse.stream(body, {
        contentType: csv ? "text/csv; charset=utf-8" : "application/x-ndjson",
        headers: cursor === null ? {} : { [FEED_CURSOR]: cursor }
      })
    })
