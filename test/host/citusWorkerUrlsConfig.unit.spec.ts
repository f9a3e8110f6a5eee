import { describe, expect, it } from "vitest"
import { resolveHostConfig } from "../../packages/http/src/host/HostConfig.js"
import { hostConfigProblem } from "../support/hostConfigProblem.js"

const url = "postgres://app:secret@coordinator:5432/crm"
const w1 = "postgres://app:secret@proxy-a:6432/crm"
const w2 = "postgresql://app:secret@proxy-b:6432/crm?sslmode=require"

describe("--citus-worker-urls / DEALSTREAM_CITUS_WORKER_URLS", () => {
  it("maps each worker's host:port to the URL the host reaches it at, and goes with the postgres storage", () => {
    const flag = resolveHostConfig(
      { storage: "postgres", "database-url": url, "citus-worker-urls": `10.0.0.5:5432=${w1}, worker-2:5433=${w2}` },
      {}
    )
    expect(flag.storage).toEqual({ postgres: url, citusWorkerUrls: { "10.0.0.5:5432": w1, "worker-2:5433": w2 } })
    const env = resolveHostConfig({ storage: "postgres", "database-url": url }, { DEALSTREAM_CITUS_WORKER_URLS: `w:5432=${w1}` })
    expect(env.storage).toEqual({ postgres: url, citusWorkerUrls: { "w:5432": w1 } })
    // Unset: the addresses pg_dist_node gives, with the database URL's credentials.
    expect(resolveHostConfig({ storage: "postgres", "database-url": url }, {}).storage).toEqual({ postgres: url })
  })

  it("refuses a pair without host:port, a URL that is not one server's, and storages without a database", () => {
    expect(hostConfigProblem({ storage: "postgres", "database-url": url, "citus-worker-urls": w1 }, {})).toBe(
      "--citus-worker-urls: pair 1 must start with the worker's host:port as pg_dist_node has it, then ="
    )
    expect(hostConfigProblem({ storage: "postgres", "database-url": url }, { DEALSTREAM_CITUS_WORKER_URLS: "w:5432=mysql://x/y" })).toBe(
      "DEALSTREAM_CITUS_WORKER_URLS: w:5432: not a postgres:// URL"
    )
    expect(hostConfigProblem({ storage: "postgres", "database-url": url, "citus-worker-urls": "w:5432=postgres://a:1,b:2/crm" }, {})).toBe(
      "--citus-worker-urls: w:5432 must name one server"
    )
    expect(hostConfigProblem({ storage: "memory", "citus-worker-urls": `w:5432=${w1}` }, {})).toBe(
      "--citus-worker-urls needs storage postgres (the coordinator of a Citus cluster)"
    )
    expect(hostConfigProblem({ storage: "postgres", "database-url": url, "citus-worker-urls": "" }, {})).toBe(
      "--citus-worker-urls must list host:port=postgres://… pairs, separated by commas"
    )
  })
})
