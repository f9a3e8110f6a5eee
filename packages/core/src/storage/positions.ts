import { Context } from "effect"

/**
 * A point in the storage's history, as a number that only grows: PostgreSQL's WAL position (the
 * LSN as one 64-bit number), the memory storage's last sequence. A write's position is at or after
 * its commit, so a server that has replayed up to it sees the write.
 */
export type StoragePosition = bigint

const TOKEN = /^[0-9A-F]{16}$/

/**
 * A position as clients see it (`Dealstream-StoragePosition`, `Dealstream-Read-After`): sixteen upper-case
 * hexadecimal digits. Opaque to them; fixed width, so tokens also sort as text.
 */
export const positionToken = (position: StoragePosition): string => position.toString(16).toUpperCase().padStart(16, "0")

/** A token's position; null for anything that is not a token (lower-case digits are taken). */
export const parsePositionToken = (text: string): StoragePosition | null => {
  const upper = text.trim().toUpperCase()
  return TOKEN.test(upper) ? BigInt(`0x${upper}`) : null
}

export const laterPosition = (a: StoragePosition | null, b: StoragePosition | null): StoragePosition | null =>
  a === null ? b : b === null ? a : a > b ? a : b

/**
 * Where the reads of one request may be served, and what they must see. A host sets one per read
 * request it allows on replicas (gets, lists, searches, history); without one (the default: every
 * command, the change feed, the workers, an embedder's own calls) every read goes to the primary.
 * `server` is the storage's own note of the replica it chose, so every read of the request is
 * served by one server, whose history only moves forward: the request never sees a record and then
 * an older version of it.
 */
export interface ReadRoute {
  /** The position every read must see: the caller's own last write, or what it asked for. */
  readonly after: StoragePosition | null
  /** The storage's choice for this request, once made (opaque outside the storage). */
  server: unknown
}

export const ReadRoute = Context.Reference<ReadRoute | null>("@dealstream/core/ReadRoute", { defaultValue: () => null })

/** Where a request keeps the position of what it wrote: the storage moves it on at each commit. */
export interface WrittenAt {
  position: StoragePosition | null
}

export const WrittenAt = Context.Reference<WrittenAt | null>("@dealstream/core/WrittenAt", { defaultValue: () => null })

/** Notes a commit's position in the request's WrittenAt, if it keeps one. */
export const noteWritten = (written: WrittenAt | null, position: StoragePosition | null): void => {
  if (written !== null) written.position = laterPosition(written.position, position)
}
