import { Effect } from "effect"
import { ValidationError } from "../../errors.js"
import { unstorableTextPath } from "../../storableText.js"

const MESSAGE = "contains U+0000 or an unpaired surrogate, which cannot be stored"

/** Passes a request body through when every string in it can be stored. */
export const storableBody = (body: unknown): Effect.Effect<unknown, ValidationError> => {
  const path = unstorableTextPath(body)
  return path === null ? Effect.succeed(body) : Effect.fail(ValidationError.at(path, MESSAGE))
}

/** The same check for query parameters, whose values end up in queries as bind parameters. */
export const storableParams = <P>(params: P): Effect.Effect<P, ValidationError> => {
  const path = unstorableTextPath(params)
  return path === null ? Effect.succeed(params) : Effect.fail(ValidationError.at(path, MESSAGE))
}
