import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { suitesOnCitus } from "./test/support/citusSuites.js"
import { testWorkers } from "./test/support/workers.js"

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

const specsEnding = (suffix: string) => ["packages/*/src/**/", "test/**/", "examples/*/src/**/"].map((folder) => `${folder}*${suffix}`)

export default defineConfig({
  resolve: {
    // Tests run against the sources, so no build is needed and one copy of every Context tag is loaded.
    alias: [
      { find: /^@dealstream\/core\/testing$/, replacement: src("core/src/testing/index.ts") },
      { find: /^@dealstream\/core$/, replacement: src("core/src/index.ts") },
      { find: /^@dealstream\/storage-memory$/, replacement: src("storage-memory/src/index.ts") },
      { find: /^@dealstream\/storage-pg$/, replacement: src("storage-pg/src/index.ts") },
      { find: /^@dealstream\/http$/, replacement: src("http/src/index.ts") }
    ]
  },
  test: {
    // Files in parallel, also on 2 cores (see workers.ts); each has its own database (pg.ts).
    maxWorkers: testWorkers(),
    // A worker runs its files one after another on the modules it has loaded, instead of evaluating
    // Effect and the engine afresh for each file; so no file may leave process-wide state behind
    // (docs/tests.md says why and what it saved).
    isolate: false,
    // A test waits for events; the timeout only ends a hung one. 60 s: CLI and failover files run
    // several processes one after another, which on 2 shared cores under other files takes 30 s and more.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          include: specsEnding(".{unit,int}.spec.ts")
        }
      },
      {
        extends: true,
        test: {
          name: "postgres, hosts",
          include: specsEnding(".spec.ts"),
          exclude: ["**/node_modules/**", ...specsEnding(".{unit,int,citus}.spec.ts")],
          // One PostgreSQL for the run (DATABASE_URL or an embedded server) for the *.pg.spec.ts files.
          globalSetup: ["test/support/pgGlobalSetup.ts"]
        }
      },
      // The Citus suites start clusters of the machine's PostgreSQL 15 with Citus installed
      // (test/support/citusCluster.ts): `npm run test:citus`, which .ci/run runs after installing it.
      ...(process.env["DEALSTREAM_CITUS"] === "1"
        ? [
            {
              extends: true,
              test: {
                name: "citus",
                include: [...specsEnding(".citus.spec.ts"), ...suitesOnCitus],
                // The PostgreSQL suites named in citusSuites.ts run here on the PostgreSQL storage only.
                env: { DEALSTREAM_TEST_STORAGES: "postgres" },
                globalSetup: ["test/support/citusGlobalSetup.ts"]
              }
            }
          ]
        : [])
    ]
  }
})
