import { Result } from "effect"
import { ValidationError } from "../errors.js"
import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"

/**
 * What the change feed hands out: every event a webhook can subscribe to, and the tombstones a
 * purge leaves (`data` is `{id}`; the record's earlier events show `{"redacted": true}` from then on).
 */
export const FEED_EVENT_TYPES: ReadonlyArray<string> = builtInRecordTypes.feedTypes

export const isFeedEventType = (type: string, known: RecordTypeSet = builtInRecordTypes): boolean => known.feedTypes.includes(type)

const unknownPattern = (pattern: string) =>
  ValidationError.at("types", `${JSON.stringify(pattern)} is not an event type of the feed, nor a prefix.* of one`)

/**
 * `types=` as the exact feed types it names: comma-separated names and `prefix.*` patterns
 * (`contact.*`); absent or empty names every feed type. A name or pattern that keeps no feed type
 * is refused, as a typo would otherwise read as a quiet feed.
 */
export const parseFeedTypes = (
  raw: string | null,
  known: RecordTypeSet = builtInRecordTypes
): Result.Result<ReadonlyArray<string>, ValidationError> => {
  const FEED_EVENT_TYPES = known.feedTypes
  if (raw === null || raw.trim() === "") return Result.succeed(FEED_EVENT_TYPES)
  const kept = new Set<string>()
  for (const pattern of raw.split(",").map((part) => part.trim())) {
    const matches = pattern.endsWith(".*")
      ? FEED_EVENT_TYPES.filter((type) => type.startsWith(pattern.slice(0, -1)))
      : FEED_EVENT_TYPES.filter((type) => type === pattern)
    if (matches.length === 0) return Result.fail(unknownPattern(pattern))
    for (const type of matches) kept.add(type)
  }
  // In the feed's order, so equal filters read alike.
  return Result.succeed(FEED_EVENT_TYPES.filter((type) => kept.has(type)))
}
