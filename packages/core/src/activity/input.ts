import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import { ValidationError } from "../errors.js"
import type { CustomFieldDefinition } from "../field/custom.js"
import { activityFields } from "../field/activityFields.js"
import { type RecordParser, recordCreateParser, recordPatchParser } from "../field/recordBody.js"
import type { JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"

/** An activity body read: its fields, and `done` (null when the body left it out). */
export interface ActivityInput {
  readonly fields: JsonObject
  readonly done: boolean | null
}

export type ActivityParser = (
  body: unknown,
  definitions: ReadonlyArray<CustomFieldDefinition>
) => Result.Result<ActivityInput, ValidationError>

/**
 * `done` is no field of the record (done_at is, read-only): it is taken out of the body before the
 * fields are read, and every problem of both is answered at once.
 */
const withDone =
  (parseFields: RecordParser): ActivityParser =>
  (body, definitions) => {
    if (!isJsonObject(body) || !Object.hasOwn(body, "done")) {
      return Result.map(parseFields(body, definitions), (fields) => ({ fields, done: null }))
    }
    const { done, ...rest } = body
    const parsed = parseFields(rest, definitions)
    const details: Array<ErrorDetail> = Result.isFailure(parsed) ? [...parsed.failure.details] : []
    if (typeof done !== "boolean") details.push({ path: "done", message: "must be a boolean" })
    if (details.length > 0 || Result.isFailure(parsed)) return Result.fail(ValidationError.of(details))
    return Result.succeed({ fields: parsed.success, done: typeof done === "boolean" ? done : null })
  }

/** Every standard field (absent ones null, links empty) and the custom keys the body gave. */
export const parseActivityCreate = withDone(recordCreateParser(activityFields))

/** Only the keys the body gave: a PATCH changes nothing else. */
export const parseActivityPatch = withDone(recordPatchParser(activityFields))
