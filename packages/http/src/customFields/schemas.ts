import { Schema } from "effect"

export const FieldObject = Schema.Literal("contact", "deal")

export const CustomFieldDefinition = Schema.Struct({
  object: FieldObject,
  key: Schema.String.annotations({
    description: "^[a-z][a-z0-9_]{0,62}$, not a standard field of the object.",
    examples: ["industry"]
  }),
  label: Schema.String.annotations({ examples: ["Industry"] }),
  type: Schema.Literal("text", "number", "boolean", "date", "enum"),
  options: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)).annotations({
    description: "The allowed values of an enum field (enum only)."
  }))
}).annotations({ identifier: "CustomFieldDefinition" })
