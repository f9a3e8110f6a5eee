import { contactKeysFunction } from "./0031_duplicate_keys.js"
import type { Migration } from "./Migration.js"

/**
 * A contact's `name_company` keys name the companies it links, as core's duplicateKeys reads them
 * (contact/companyLinks.ts, linkedCompanyIds): its `company_ids`' strings, and none for a contact
 * written before contacts stored `company_ids`, whose `company_id` was free text then, not a
 * company. Migration 0031 took that `company_id` as a company: two such contacts with the same name
 * and the same text were listed as duplicates, the text shown as the group's `company_id`.
 *
 * ds_contact_duplicate_keys is made again with the linked companies only; the row triggers call it
 * by name, so they take the rule from their next write on (on Citus too, which carries the new text
 * to the workers, citus.ts). Then the keys already stored for those contacts, and the counts of
 * their groups, are set right: a contact without a `company_ids` array has no `name_company` key by
 * the new rule, so every one it holds goes, and its group counts one holder fewer (its row goes
 * when none is left), as the triggers would have kept them. Each statement joins rows of one
 * workspace, so Citus runs it on the workers, each on its own colocated shards.
 *
 * The contacts table is locked against writes first: a commit in flight when the migration starts
 * would otherwise keep the old rule's keys of a contact, written after these statements read.
 */

const CONTACTS = "ds_contacts"
const KEYS = "ds_contacts_duplicate_keys"
const GROUPS = "ds_contacts_duplicate_groups"

/** The contact rows, `t`, whose `company_ids` is not an array: the contacts of before. */
const ofBefore = `jsonb_typeof(t.data -> 'company_ids') IS DISTINCT FROM 'array'`

export const migration: Migration = {
  id: 32,
  name: "duplicate keys of linked companies",
  statements: [
    `LOCK TABLE ${CONTACTS} IN SHARE MODE`,
    contactKeysFunction(
      "CREATE OR REPLACE",
      `CASE WHEN jsonb_typeof(data -> 'company_ids') = 'array' THEN data -> 'company_ids' ELSE '[]'::jsonb END`
    ),
    `UPDATE ${GROUPS} AS g SET n = g.n - gone.n
      FROM (
        SELECT k.workspace_id, k.rule, k.key, count(*)::integer AS n
        FROM ${KEYS} AS k JOIN ${CONTACTS} AS t ON t.workspace_id = k.workspace_id AND t.id = k.id
        WHERE k.rule = 'name_company' AND ${ofBefore}
        GROUP BY k.workspace_id, k.rule, k.key
      ) AS gone
      WHERE g.workspace_id = gone.workspace_id AND g.rule = gone.rule AND g.key = gone.key`,
    `DELETE FROM ${GROUPS} WHERE rule = 'name_company' AND n <= 0`,
    `DELETE FROM ${KEYS} AS k USING ${CONTACTS} AS t
      WHERE t.workspace_id = k.workspace_id AND t.id = k.id AND k.rule = 'name_company' AND ${ofBefore}`
  ]
}
