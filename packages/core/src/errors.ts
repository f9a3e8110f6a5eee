import { Schema } from "effect"

/** One offending part of a request: `path` points into the body or query (`filter.$or[1].value`). */
export const ErrorDetail = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
  /** The id of the record a conflict is with, when there is one. */
  id: Schema.optional(Schema.String),
  /** The scope a request needs and its API key lacks (403 `forbidden`). */
  scope: Schema.optional(Schema.String)
})
export type ErrorDetail = typeof ErrorDetail.Type

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail)
}) {
  static of(details: ReadonlyArray<ErrorDetail>): ValidationError {
    const first = details[0]
    const message = first === undefined ? "invalid request" : first.path === "" ? first.message : `${first.path} ${first.message}`
    return new ValidationError({ message, details })
  }
  static at(path: string, message: string): ValidationError {
    return ValidationError.of([{ path, message }])
  }
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String,
  /**
   * The survivor a record was merged into (API.md, "Merge and duplicates"): any request on the
   * merged id is sent there (308 `merged`) instead of being not found.
   */
  mergedInto: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return this.mergedInto === undefined
      ? `${this.resource} ${this.id} not found`
      : `${this.resource} ${this.id} was merged into ${this.mergedInto}`
  }
}

/** A business conflict the client can resolve (email taken, stage still holds deals, …). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail)
}) {}

/** `If-Match` named another version than the current one. */
export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", {
  message: Schema.String,
  currentVersion: Schema.Number
}) {}

/** Storage could not be reached; the request changed nothing and may be retried. */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  message: Schema.String
}) {}

/**
 * A key asked to hand out a scope it does not hold itself (`POST`/`PATCH /v1/api-keys`): the API
 * answers 403 `forbidden` naming `scope`, as it does a request its key lacks the scope of.
 */
export class ScopeNotGranted extends Schema.TaggedError<ScopeNotGranted>()("ScopeNotGranted", {
  message: Schema.String,
  scope: Schema.String
}) {}

export type DomainError = ValidationError | NotFound | Conflict | PreconditionFailed
