import { companyFields } from "../field/companyFields.js"
import { recordCreateParser, recordPatchParser } from "../field/recordBody.js"

/** Every standard field (absent ones null) and the custom keys the body gave. */
export const parseCompanyCreate = recordCreateParser(companyFields)

/** Only the keys the body gave: a PATCH changes nothing else. */
export const parseCompanyPatch = recordPatchParser(companyFields)
