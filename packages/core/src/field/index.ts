export { type FieldCheck, text, trimmedText } from "./checks.js"
export { ACTIVITY_BODY_MAX, ACTIVITY_LINKS_MAX, activityFields, type ActivityType, activityTypes } from "./activityFields.js"
export { companyFields } from "./companyFields.js"
export { contactFields } from "./contactFields.js"
export { CONTACT_IDS_MAX, type DealStatus, dealFields, dealStatuses, LOST_REASON_MAX } from "./dealFields.js"
export { recordFields } from "./records.js"
export {
  type FieldRow,
  fieldTable,
  recordFieldTable,
  type FieldType,
  type RecordFields,
  reservedKeysOf,
  STANDARD_TEXT_MAX,
  type StandardField,
  type WritableField,
  writableOf
} from "./table.js"
export { inRecordOrder } from "./recordOrder.js"
