import { CustomFieldObject, CustomFieldType } from "@dealstream/core"
import { Schema } from "effect"
import { Timestamp } from "../documented.js"

const fields = {
  object: CustomFieldObject,
  key: Schema.String.annotate({
    description: "^[a-z][a-z0-9_]{0,62}$, not a standard field of the object.",
    examples: ["industry"]
  }),
  label: Schema.String.annotate({ examples: ["Industry"] }),
  type: CustomFieldType
}

const options = Schema.NullOr(Schema.Array(Schema.String)).annotate({
  description: "The allowed values of an enum field (enum only)."
})

export const CustomFieldInput = Schema.Struct({ ...fields, options: Schema.optionalKey(options) }).annotate({
  identifier: "CustomFieldInput"
})

/** A definition as it is answered: options always there (null but for enums), and when it was made. */
export const CustomFieldDefinition = Schema.Struct({ ...fields, options, created_at: Timestamp }).annotate({
  identifier: "CustomFieldDefinition"
})
