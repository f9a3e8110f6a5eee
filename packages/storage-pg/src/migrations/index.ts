import { migration as events } from "./0001_events.js"
import { migration as documents } from "./0002_documents.js"
import { migration as commitFunction } from "./0003_commit_function.js"
import { migration as webhooksAndDeliveries } from "./0004_webhooks_and_deliveries.js"
import { migration as commitFunctionWithDeliveries } from "./0005_commit_function_with_deliveries.js"
import { migration as apiKeys } from "./0006_api_keys.js"
import { migration as commitBatches } from "./0007_commit_batches.js"
import { migration as deliveriesByEventStream } from "./0008_deliveries_by_event_stream.js"
import { migration as eventTransactionIds } from "./0009_event_transaction_ids.js"
import { migration as settingsVersions } from "./0010_settings_versions.js"
import { migration as searchWords } from "./0011_search_words.js"
import { migration as eventsByWorkspace } from "./0012_events_by_workspace.js"
import { migration as eventsFeed } from "./0013_events_feed.js"
import { migration as eventsAnnounced } from "./0014_events_announced.js"
import { migration as companiesAndActivities } from "./0015_companies_and_activities.js"
import { migration as commitSet } from "./0016_commit_set.js"
import { migration as feedLocks } from "./0017_feed_locks.js"
import { migration as storedFunctions } from "./0018_stored_functions.js"
import { migration as commitFolded } from "./0019_commit_folded.js"
import { migration as pluginMigrations } from "./0020_plugin_migrations.js"
import { migration as dealFigures } from "./0022_deal_figures.js"
import { migration as listingIndexesById } from "./0023_listing_indexes_by_id.js"
import { migration as apiKeyUses } from "./0024_api_key_uses.js"
import { migration as dealContactLinks } from "./0026_deal_contact_links.js"
import { migration as streamRowsInTheirLog } from "./0027_stream_rows_in_their_log.js"
import { migration as figureDeltasOfAnyRow } from "./0028_figure_deltas_of_any_row.js"
import { migration as feedOffsets } from "./0029_feed_offsets.js"
import { migration as consumers } from "./0030_consumers.js"
import { migration as duplicateKeys } from "./0031_duplicate_keys.js"
import { migration as duplicateKeysOfLinkedCompanies } from "./0032_duplicate_keys_of_linked_companies.js"
import { migration as readsOnWorkersTakeParams } from "./0033_reads_on_workers_take_params.js"
import { migration as conversionByOwnerAndStage } from "./0034_conversion_by_owner_and_stage.js"
import type { Migration } from "./Migration.js"

export type { Migration } from "./Migration.js"

/** Every migration, in id order. */
export const migrations: ReadonlyArray<Migration> = [
  events,
  documents,
  commitFunction,
  webhooksAndDeliveries,
  commitFunctionWithDeliveries,
  apiKeys,
  commitBatches,
  deliveriesByEventStream,
  eventTransactionIds,
  settingsVersions,
  searchWords,
  eventsByWorkspace,
  eventsFeed,
  eventsAnnounced,
  companiesAndActivities,
  commitSet,
  feedLocks,
  storedFunctions,
  commitFolded,
  pluginMigrations,
  dealFigures,
  listingIndexesById,
  apiKeyUses,
  dealContactLinks,
  streamRowsInTheirLog,
  figureDeltasOfAnyRow,
  feedOffsets,
  consumers,
  duplicateKeys,
  duplicateKeysOfLinkedCompanies,
  readsOnWorkersTakeParams,
  conversionByOwnerAndStage
]
