import { Result } from "effect"
import { contactFields } from "../field/contactFields.js"
import { type RecordParser, recordCreateParser, recordPatchParser } from "../field/recordBody.js"
import { isJsonObject } from "../json.js"
import { withCompanies } from "./companyLinks.js"

/** The record parser, then the body's company_id and company_ids made one (companyLinks.ts). */
const withCompaniesMadeOne =
  (parse: RecordParser): RecordParser =>
  (body, definitions) =>
    Result.flatMap(parse(body, definitions), (fields) => (isJsonObject(body) ? withCompanies(body, fields) : Result.succeed(fields)))

/** Every standard field (absent ones null, company_ids []) and the custom keys the body gave. */
export const parseContactCreate = withCompaniesMadeOne(recordCreateParser(contactFields))

/** Only the keys the body gave (company_id and company_ids both when it gave either): a PATCH changes nothing else. */
export const parseContactPatch = withCompaniesMadeOne(recordPatchParser(contactFields))
