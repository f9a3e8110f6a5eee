import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { resolveHostConfig } from "../../packages/http/src/host/HostConfig.js"
import { hostConfigProblem } from "../support/hostConfigProblem.js"

const url = "postgres://app:secret@db.internal:5432/crm"

describe("--database-timeout / DEALSTREAM_DATABASE_TIMEOUT", () => {
  it("goes with the database chosen, in milliseconds, and only when given", () => {
    const flag = resolveHostConfig({ storage: "postgres", "database-url": url, "database-timeout": "2s" }, {})
    expect(flag.storage).toEqual({ postgres: url, databaseTimeoutMillis: 2_000 })
    const env = resolveHostConfig({ "data-dir": "/tmp/ds" }, { DEALSTREAM_DATABASE_TIMEOUT: "500ms" })
    expect(env.storage).toEqual({ embedded: resolve("/tmp/ds"), databaseTimeoutMillis: 500 })
    const both = resolveHostConfig(
      { storage: "postgres", "database-url": url, "database-timeout": "1m" },
      {
        DEALSTREAM_DATABASE_TIMEOUT: "5s"
      }
    )
    expect(both.storage).toEqual({ postgres: url, databaseTimeoutMillis: 60_000 })
    // unset: PgStorage's default (30 s); memory has no database to wait for
    expect(resolveHostConfig({ storage: "postgres", "database-url": url }, {}).storage).toEqual({ postgres: url })
    expect(resolveHostConfig({ storage: "memory", "database-timeout": "2s" }, {}).storage).toBe("memory")
  })

  it("refuses what is not a duration, naming the flag or the variable", () => {
    expect(hostConfigProblem({ storage: "postgres", "database-url": url, "database-timeout": "soon" }, {})).toBe(
      `--database-timeout: "soon" is not a duration such as 500ms, 15s, 5m, 2h or 1d`
    )
    expect(hostConfigProblem({ storage: "postgres", "database-url": url }, { DEALSTREAM_DATABASE_TIMEOUT: "0s" })).toBe(
      `DEALSTREAM_DATABASE_TIMEOUT: "0s" must be greater than zero`
    )
  })
})
