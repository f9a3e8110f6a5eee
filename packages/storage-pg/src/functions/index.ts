import { ds_commit } from "./ds_commit.js"
import { ds_commit_batch } from "./ds_commit_batch.js"
import { ds_commit_set } from "./ds_commit_set.js"
import { ds_commit_with_settings } from "./ds_commit_with_settings.js"
import { ds_events_drop_redacted_payload } from "./ds_events_drop_redacted_payload.js"
import { ds_events_notify_feed } from "./ds_events_notify_feed.js"
import { searchWords } from "./searchWords.js"
import type { StoredFunction } from "./StoredFunction.js"

export type { StoredFunction } from "./StoredFunction.js"

/** Every stored function of the schema, as it runs today (see StoredFunction.ts). */
export const functions: ReadonlyArray<StoredFunction> = [
  ds_commit,
  ds_commit_with_settings,
  ds_commit_set,
  ds_commit_batch,
  ds_events_drop_redacted_payload,
  ds_events_notify_feed,
  ...searchWords
]
