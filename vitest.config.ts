import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.spec.ts", "test/**/*.spec.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000
  }
})
