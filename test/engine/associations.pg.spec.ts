import { describe, it } from "@effect/vitest"
import { onCitus, pgStorageLayer } from "../support/pg.js"
import { associationProperty } from "./associations.js"

describe("deals and contacts stay linked as the model says, on PostgreSQL", () => {
  // One database for the file: every run has a workspace of its own.
  it(
    "across creates, deletes, restores, purges and patches of contact_ids, every view agrees",
    // Fewer runs on Citus, where a commit costs several times one on a single server (docs/citus.md).
    () => associationProperty({ storage: pgStorageLayer, storagePerRun: false, numRuns: onCitus() ? 12 : 40 }),
    120_000
  )
})
