import { Result } from "effect"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { isJsonObject } from "../json.js"

/** The most records one merge takes into its survivor. */
export const MAX_MERGED = 9

/** A merge's body as the engine acts on it. */
export interface MergeInput {
  readonly mergeIds: ReadonlyArray<string>
  /** Per field, the record whose value wins. */
  readonly prefer: ReadonlyMap<string, string>
  readonly dryRun: boolean
}

/**
 * `{merge_ids, prefer?, dry_run?}` for survivor `id` (API.md, "Merge and duplicates"): 1 to 9
 * distinct ids other than the survivor's; `prefer` names, per field among `preferable`, the
 * survivor or one of merge_ids. Every problem at once; whether the ids are live records is the
 * engine's to find.
 */
export const parseMergeInput = (
  body: unknown,
  id: string,
  noun: string,
  preferable: ReadonlySet<string>
): Result.Result<MergeInput, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(ValidationError.at("", "must be an object with merge_ids"))
  const problems: Array<ErrorDetail> = []
  for (const key of Object.keys(body))
    if (key !== "merge_ids" && key !== "prefer" && key !== "dry_run") problems.push({ path: key, message: "is not a known field" })
  const raw = body["merge_ids"]
  const mergeIds: Array<string> = []
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_MERGED) {
    problems.push({ path: "merge_ids", message: `must be an array of 1 to ${MAX_MERGED} ${noun} ids` })
  } else {
    raw.forEach((value, i) => {
      if (typeof value !== "string" || value.length === 0) problems.push({ path: `merge_ids[${i}]`, message: `must be a ${noun} id` })
      else if (value === id) problems.push({ path: `merge_ids[${i}]`, message: `is the ${noun} merged into: it cannot merge into itself` })
      else if (mergeIds.includes(value)) problems.push({ path: `merge_ids[${i}]`, message: "is named twice" })
      else mergeIds.push(value)
    })
  }
  const prefer = new Map<string, string>()
  const rawPrefer = body["prefer"] ?? {}
  if (!isJsonObject(rawPrefer)) problems.push({ path: "prefer", message: `must be an object of field names to ${noun} ids` })
  else {
    for (const [field, value] of Object.entries(rawPrefer)) {
      if (!preferable.has(field)) problems.push({ path: `prefer.${field}`, message: "is not a field a merge chooses" })
      else if (typeof value !== "string" || (value !== id && !mergeIds.includes(value)))
        problems.push({ path: `prefer.${field}`, message: `must be the ${noun} merged into or one of merge_ids` })
      else prefer.set(field, value)
    }
  }
  const dryRun = body["dry_run"] ?? false
  if (typeof dryRun !== "boolean") problems.push({ path: "dry_run", message: "must be true or false" })
  return problems.length > 0 ? Result.fail(ValidationError.of(problems)) : Result.succeed({ mergeIds, prefer, dryRun: dryRun === true })
}
