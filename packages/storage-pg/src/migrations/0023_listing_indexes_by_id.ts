import type { Migration } from "./Migration.js"

/**
 * The GIN indexes that find the live rows listing an id (a contact's deals, a company's contacts,
 * a record's activities) keyed the array alone, no longer with workspace_id beside it. With the
 * workspace in the index, every search intersected the id's short posting list with the
 * workspace's, which holds every row of the workspace: about 20–60 µs a lookup at 200,000 deals,
 * paid once per contact of every list page and export page for its deal_ids (3.9 ms of a 4.3 ms
 * page of 100, 37 s of PostgreSQL CPU for an export of 1M contacts). Keyed by the array alone a
 * lookup takes about 9 µs; ids are unique across workspaces, and the queries still test
 * workspace_id on the rows they fetch.
 */
const byId = (table: string, key: string) => [
  `DROP INDEX ${table}_${key}`,
  `CREATE INDEX ${table}_${key} ON ${table} USING gin ((data -> '${key}') jsonb_path_ops) WHERE deleted_at IS NULL`
]

export const migration: Migration = {
  id: 23,
  name: "listing indexes by id",
  statements: [
    ...byId("ds_deals", "contact_ids"),
    ...byId("ds_activities", "contact_ids"),
    ...byId("ds_activities", "deal_ids"),
    ...byId("ds_activities", "company_ids"),
    ...byId("ds_contacts", "company_ids")
  ]
}
