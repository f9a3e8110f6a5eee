import { Conflict } from "../errors.js"

/**
 * The refusal of a write whose unique field (a contact's email) another live record of its type
 * holds, naming that record; a restore is told the value was taken while the record was in the trash.
 */
export const uniqueFieldTaken =
  (name: string, field: string) =>
  (existingId: string, command: { readonly type: string }): Conflict => {
    const restoring = command.type.startsWith("Restore")
    return new Conflict({
      message: restoring
        ? `the ${name}'s ${field} is now used by another live ${name}`
        : `a live ${name} with this ${field} already exists`,
      details: [{ path: field, message: `is ${restoring ? "now" : "already"} used by ${existingId}`, id: existingId }]
    })
  }
