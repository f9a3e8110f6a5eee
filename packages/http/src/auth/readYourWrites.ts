import {
  type EngineService,
  laterPosition,
  parsePositionToken,
  positionToken,
  ReadRoute,
  type StoragePosition,
  ValidationError,
  type WrittenAt,
  WrittenAt as WrittenAtReference
} from "@dealstream/core"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect, type Option } from "effect"

/** The request header asking a read to see at least a position. */
export const READ_AFTER = "dealstream-read-after"
/** The response header of every write: the position that holds it. */
export const POSITION = "dealstream-position"

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"])

/**
 * The last position each API key wrote at through this host, so its reads see its own writes
 * wherever they are served (API.md, "Read positions and replicas"). At most `capacity` keys: the
 * key written least recently is forgotten first, and its position becomes the floor every key not
 * remembered must see, so forgetting costs a read its replica at worst, never its own write.
 */
export class LastWrites {
  private readonly byKey = new Map<string, StoragePosition>()
  private floor: StoragePosition | null = null

  constructor(private readonly capacity = 100_000) {}

  after(keyId: string): StoragePosition | null {
    return this.byKey.get(keyId) ?? this.floor
  }

  wrote(keyId: string, position: StoragePosition): void {
    const known = this.byKey.get(keyId)
    this.byKey.delete(keyId)
    this.byKey.set(keyId, laterPosition(known ?? null, position)!)
    if (this.byKey.size <= this.capacity) return
    const [oldest, at] = this.byKey.entries().next().value!
    this.byKey.delete(oldest)
    this.floor = laterPosition(this.floor, at)
  }
}

const refusedToken = () =>
  ValidationError.of([
    {
      path: "Dealstream-Read-After",
      message: "must be a position a write answered with (Dealstream-Position: 16 hexadecimal digits)"
    }
  ])

/**
 * Where a write's answer says it is: the position of what it stored, or, when it stored nothing (an
 * idempotent replay), the storage's position now; none when the storage cannot say.
 */
export const positionOfWrite = (engine: EngineService, written: WrittenAt): Effect.Effect<Option.Option<StoragePosition>> =>
  written.position === null ? Effect.option(engine.position) : Effect.succeedSome(written.position)

/**
 * Runs an authenticated request so that reads see what they must and writes say where they are:
 * - a GET reads with a ReadRoute after the later of `Dealstream-Read-After` and the key's own last
 *   write through this host (a malformed header is 400 before anything is read), so the storage
 *   may serve it from a replica that has replayed that far;
 * - a write collects the position of what it stores, and a 2xx answer carries it as
 *   `Dealstream-Position` (a write that stored nothing, such as an idempotent replay, answers the
 *   storage's position now), remembered as the key's last write.
 */
export const withPositions = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  keyId: string,
  lastWrites: LastWrites,
  engine: EngineService,
  handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E | ValidationError, R> => {
  if (request.method === "GET") {
    const header = request.headers[READ_AFTER]
    const asked = header === undefined ? null : parsePositionToken(header)
    if (header !== undefined && asked === null) return Effect.fail(refusedToken())
    const route: ReadRoute = { after: laterPosition(asked, lastWrites.after(keyId)), server: null }
    return Effect.provideService(handle, ReadRoute, route)
  }
  if (!WRITES.has(request.method)) return handle
  const written: WrittenAt = { position: null }
  return handle.pipe(
    Effect.provideService(WrittenAtReference, written),
    Effect.flatMap((response) => {
      if (response.status < 200 || response.status > 299) return Effect.succeed(response)
      return Effect.map(positionOfWrite(engine, written), (at) => {
        // The storage could not say where it is now: the write stands, without a position to read after.
        if (at._tag === "None") return response
        lastWrites.wrote(keyId, at.value)
        return HttpServerResponse.setHeader(response, POSITION, positionToken(at.value))
      })
    })
  )
}
