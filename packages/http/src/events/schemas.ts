import { Schema } from "effect"
import { exampleId, Timestamp } from "../documented.js"

/** One event of the change feed: the body a webhook delivery of it POSTs, byte for byte. */
export const FeedEvent = Schema.Struct({
  id: exampleId("evt"),
  type: Schema.String.annotate({ description: "The event's type.", examples: ["deal.stage_changed"] }),
  created_at: Timestamp,
  workspace_id: exampleId("ws"),
  sequence: Schema.Number.annotate({
    description:
      "The event's place in the log. Numbers grow with commit order but may arrive out of order in the feed " +
      "(a transaction holding a lower one can commit later): follow the cursor, not the number."
  }),
  data: Schema.Record(Schema.String, Schema.Unknown).annotate({
    description:
      "As in the webhook payload of the type (GET /v1/webhook-event-types has each type's JSON Schema): the record " +
      "as the API showed it when the event was committed. `{id}` for a delete and for a purge's or an erasure's tombstone " +
      '(contact.purged, deal.purged, contact.erased); `{"redacted": true}` for the earlier events of a purged or erased record. For an API ' +
      "key's event (api_key.created, api_key.updated, api_key.revoked, which no webhook subscribes to): `{api_key}`, " +
      "the key as GET /v1/api-keys/{id} showed it (never the key nor its digest), and `changed_fields` for an update."
  })
}).annotate({ identifier: "FeedEvent" })

export const FeedPage = Schema.Struct({
  data: Schema.Array(FeedEvent),
  next_cursor: Schema.String.annotate({
    description: "Pass as `after` to read on. Always given, also on an empty page: a consumer keeps it and asks again."
  })
}).annotate({ identifier: "FeedPage" })

export const feedDescription = `The workspace's change feed: every committed record event, in commit order, each exactly as a webhook
delivery of it is sent (the same bytes), including deletes, restores, the \`*.purged\` tombstones and \`contact.erased\`, and its API keys' events
(\`api_key.*\`). Follow \`next_cursor\` (pass it as \`after\`) and you see every event exactly once: an event whose transaction
commits after a later-numbered one is never skipped, on any host. With \`wait\`, an empty read is held until an event arrives. A consumer loop:

    cursor = load() or none
    loop:
      page = GET /v1/events?after=<cursor>&wait=30
      for event in page.data: handle(event)     # idempotently, by event.id
      cursor = page.next_cursor; save(cursor)`
