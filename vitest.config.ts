import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

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
    include: ["packages/*/src/**/*.spec.ts", "test/**/*.spec.ts", "examples/*/src/**/*.spec.ts"],
    // One PostgreSQL for the run (DATABASE_URL or an embedded server) for the *.pg.spec.ts files.
    globalSetup: ["test/support/pgGlobalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000
  }
})
