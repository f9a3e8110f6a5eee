import { contactFields } from "../field/contactFields.js"
import { recordCreateParser, recordPatchParser } from "../field/recordBody.js"

/** Every standard field (absent ones null) and the custom keys the body gave. */
export const parseContactCreate = recordCreateParser(contactFields)

/** Only the keys the body gave: a PATCH changes nothing else. */
export const parseContactPatch = recordPatchParser(contactFields)
