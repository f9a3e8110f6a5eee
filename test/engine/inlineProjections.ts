import { type InlineEvent, type InlineProjection, inlineProjection, type InlineStore, isJsonObject } from "@dealstream/core"

/**
 * The inline projection both storages' suites register: each contact's email, by contact id, kept
 * by contact.created and contact.updated. An email holding "throw" makes `project` throw (the
 * projection's code fails); one holding "refuse" is refused where it is written: by the table's
 * CHECK on PostgreSQL, by `apply` in memory (the write to the embedder's store fails).
 */
export interface EmailChange {
  readonly id: string
  readonly email: string
}

/** The table the PostgreSQL target writes, made by the suite in its database. */
export const EMAILS_TABLE = `CREATE TABLE ip_contact_emails (
  id text PRIMARY KEY,
  email text NOT NULL CHECK (email NOT LIKE '%refuse%'),
  changes integer NOT NULL
)`

const emailOf = (event: InlineEvent): string => {
  const contact = event.data["contact"]
  const email = isJsonObject(contact) ? contact["email"] : null
  return typeof email === "string" ? email : ""
}

/** `seen` is told the events of each call of `project`. */
export const contactEmails = (
  store: InlineStore<ReadonlyMap<string, string>>,
  seen: (events: ReadonlyArray<InlineEvent>) => void = () => {}
): InlineProjection =>
  inlineProjection<EmailChange, ReadonlyMap<string, string>>({
    name: "contact_emails",
    types: ["contact.created", "contact.updated"],
    project: (events) => {
      seen(events)
      const changes = events.map((event) => ({ id: event.stream_id, email: emailOf(event) }))
      const thrown = changes.find((change) => change.email.includes("throw"))
      if (thrown !== undefined) throw new Error(`${thrown.email} is not projected`)
      return changes
    },
    postgres: (change) => ({
      sql: `INSERT INTO ip_contact_emails (id, email, changes) VALUES ($1, $2, 1)
        ON CONFLICT (id) DO UPDATE SET email = excluded.email, changes = ip_contact_emails.changes + 1`,
      params: [change.id, change.email]
    }),
    memory: {
      store,
      apply: (state, change) => {
        if (change.email.includes("refuse")) throw new Error(`${change.email} is refused by the store`)
        return new Map(state).set(change.id, change.email)
      }
    }
  })
