// The PostgreSQL suites that the `citus` project runs again on a Citus cluster (issue 31, item 3):
// their databases come from the run's cluster (pg.ts, testDatabase), on the PostgreSQL storage
// only. Each is named here rather than by a pattern so that a suite joins the list with the change
// that makes it pass there; CONTRIBUTING.md lists the ones that do not run there yet, and why.
export const suitesOnCitus: ReadonlyArray<string> = [
  // The real host over HTTP: records, batch, idempotency, the feed and history.
  "test/http/contacts.e2e.pg.spec.ts",
  "test/http/deals.e2e.pg.spec.ts",
  "test/http/batch.e2e.pg.spec.ts",
  "test/http/idempotency.e2e.pg.spec.ts",
  "test/http/idempotencyLostAnswer.e2e.pg.spec.ts",
  "test/http/ifMatch.e2e.pg.spec.ts",
  "test/http/isolation.e2e.pg.spec.ts",
  "test/http/events.e2e.pg.spec.ts",
  "test/http/history.e2e.pg.spec.ts",
  "test/http/changeFeed.properties.e2e.pg.spec.ts",
  "test/http/eventsTail.e2e.pg.spec.ts",
  "test/http/feedStrangers.e2e.pg.spec.ts",
  "test/http/scopes.e2e.pg.spec.ts",
  "test/http/apiKeys.e2e.pg.spec.ts",
  "test/http/apiKeysTwoHosts.e2e.pg.spec.ts",
  "test/http/system.e2e.pg.spec.ts",
  "test/http/customFieldRedefinition.e2e.pg.spec.ts",
  "test/http/stageRules.e2e.pg.spec.ts",
  "test/http/pipelineAnalytics.e2e.pg.spec.ts",
  // Several hosts on one cluster.
  "test/host/twoHosts.e2e.pg.spec.ts",
  "test/http/companies.e2e.pg.spec.ts",
  "test/http/activities.e2e.pg.spec.ts",
  "test/http/associations.e2e.pg.spec.ts",
  "test/http/closingDeals.e2e.pg.spec.ts",
  "test/http/keyOrder.e2e.pg.spec.ts",
  "test/http/privacy.e2e.pg.spec.ts",
  "test/http/erasure.properties.pg.spec.ts",
  "test/http/export.e2e.pg.spec.ts",
  "test/host/crash.e2e.pg.spec.ts",
  "test/webhooks/api.e2e.pg.spec.ts",
  "test/webhooks/deliveries.e2e.pg.spec.ts",
  "test/webhooks/feedAgrees.e2e.pg.spec.ts",
  "test/webhooks/host.e2e.pg.spec.ts",
  "test/webhooks/pluginRecordType.e2e.pg.spec.ts",
  "test/webhooks/recovery.e2e.pg.spec.ts",
  "test/webhooks/secrets.e2e.pg.spec.ts",
  "test/webhooks/tooling.e2e.pg.spec.ts",
  "test/webhooks/twoHosts.e2e.pg.spec.ts",
  "test/webhooks/workerClock.properties.pg.spec.ts",
  // The model-based properties of the engine on the storage.
  "test/engine/rebuildEqualsStored.pg.spec.ts",
  "test/engine/associations.pg.spec.ts"
]
