import { Schema } from "effect"

export const FieldObject = Schema.Literals(["contact", "deal"])

export const CustomFieldDefinition = Schema.Struct({
  object: FieldObject,
  key: Schema.String.annotate({
    description: "^[a-z][a-z0-9_]{0,62}$, not a standard field of the object.",
    examples: ["industry"]
  }),
  label: Schema.String.annotate({ examples: ["Industry"] }),
  type: Schema.Literals(["text", "number", "boolean", "date", "enum"]),
  options: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String)).annotate({
    description: "The allowed values of an enum field (enum only)."
  }))
}).annotate({ identifier: "CustomFieldDefinition" })
