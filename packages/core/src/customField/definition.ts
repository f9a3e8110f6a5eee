// A definition's shape lives with the record fields it extends (field/custom.ts), below the query
// language that catalogs them; the aggregate names it from here.
export { CustomFieldDefinition, CustomFieldObject, CustomFieldType } from "../field/custom.js"
