import { Result } from "effect"
import { Base64Url } from "effect/encoding"
import { ValidationError } from "../errors.js"
import { fnv1a64 } from "../query/fingerprint.js"
import type { ChangeFeedPosition } from "../storage/changeFeed.js"

/*
 * A feed cursor is base64url of the JSON `[workspace, transaction, sequence, check]`: `workspace`
 * a hash of the workspace id (a cursor is refused by any other workspace's feed), the position in
 * commit order (ChangeFeedPosition), and `check` a hash of the three that catches edited or
 * truncated cursors. Not a signature: a forged position only moves where a reader of its own
 * workspace's feed starts.
 */

const workspaceMark = (workspaceId: string) => fnv1a64(`feed:${workspaceId}`)
const checkOf = (mark: string, position: ChangeFeedPosition) => fnv1a64(JSON.stringify([mark, position.transaction, position.sequence]))

export const encodeFeedCursor = (workspaceId: string, position: ChangeFeedPosition): string => {
  const mark = workspaceMark(workspaceId)
  return Base64Url.encode(JSON.stringify([mark, position.transaction, position.sequence, checkOf(mark, position)]))
}

const malformed = ValidationError.at("after", "is not a valid feed cursor")

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** The position a cursor of this workspace's feed carries. */
export const decodeFeedCursor = (raw: string, workspaceId: string): Result.Result<ChangeFeedPosition, ValidationError> => {
  const text = Base64Url.decodeString(raw)
  if (Result.isFailure(text)) return Result.fail(malformed)
  const payload = parse(text.success)
  if (!Array.isArray(payload) || payload.length !== 4) return Result.fail(malformed)
  const [mark, transaction, sequence, check] = payload as Array<unknown>
  if (
    typeof mark !== "string" ||
    typeof transaction !== "string" ||
    !/^(0|[1-9][0-9]{0,19})$/.test(transaction) ||
    typeof sequence !== "number" ||
    !Number.isSafeInteger(sequence) ||
    sequence < 0 ||
    typeof check !== "string"
  )
    return Result.fail(malformed)
  // A transaction id is an xid8: an unsigned 64-bit number.
  if (BigInt(transaction) >= 2n ** 64n) return Result.fail(malformed)
  const position: ChangeFeedPosition = { transaction, sequence }
  if (check !== checkOf(mark, position)) return Result.fail(malformed)
  if (mark !== workspaceMark(workspaceId)) return Result.fail(ValidationError.at("after", "is a cursor of another workspace's feed"))
  return Result.succeed(position)
}
