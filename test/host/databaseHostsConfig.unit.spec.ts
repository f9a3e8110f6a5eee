import { describe, expect, it } from "vitest"
import { ConfigProblem, resolveHostConfig } from "../../packages/http/src/host/HostConfig.js"

describe("several database hosts: DATABASE_URL as libpq writes it, or DEALSTREAM_DATABASE_HOSTS", () => {
  it("takes a URL with several hosts as it is", () => {
    const url = "postgres://app:secret@db1:5432,db2:5433/crm?target_session_attrs=read-write"
    expect(resolveHostConfig({ storage: "postgres", "database-url": url }, {}).storage).toEqual({ postgres: url })
  })

  it("puts the hosts of DEALSTREAM_DATABASE_HOSTS (or --database-hosts) in place of the URL's", () => {
    const url = "postgres://app:secret@db.internal:5432/crm?sslmode=disable"
    const env = resolveHostConfig({ storage: "postgres", "database-url": url }, { DEALSTREAM_DATABASE_HOSTS: "db1:5432,db2:5433" })
    expect(env.storage).toEqual({ postgres: "postgres://app:secret@db1:5432,db2:5433/crm?sslmode=disable" })
    const flag = resolveHostConfig(
      { storage: "postgres", "database-url": url, "database-hosts": "[::1]:6432" },
      { DEALSTREAM_DATABASE_HOSTS: "db1:5432,db2:5433" }
    )
    expect(flag.storage).toEqual({ postgres: "postgres://app:secret@[::1]:6432/crm?sslmode=disable" })
    // only for postgres, as DATABASE_URL
    expect(resolveHostConfig({ storage: "memory" }, { DEALSTREAM_DATABASE_HOSTS: "nonsense,," }).storage).toBe("memory")
  })

  it("refuses what cannot be a host list, naming the setting and never echoing the URL", () => {
    // A ConfigProblem's message is one line of CLI output; none of these carries the URL's password.
    const refused = (flags: Parameters<typeof resolveHostConfig>[0], env: Parameters<typeof resolveHostConfig>[1], message: string) =>
      expect(() => resolveHostConfig(flags, env)).toThrow(new ConfigProblem(message))
    const url = "postgres://app:secret@db.internal:5432/crm"
    refused(
      { storage: "postgres", "database-url": url },
      { DEALSTREAM_DATABASE_HOSTS: "db1:5432,,db2" },
      "DEALSTREAM_DATABASE_HOSTS: the host list has an empty entry"
    )
    refused(
      { storage: "postgres", "database-url": url, "database-hosts": "db1:99999" },
      {},
      `--database-hosts: "db1:99999" has no valid port`
    )
    refused(
      { storage: "postgres", "database-url": "postgres://app:secret@db1,db2/crm?target_session_attrs=standby" },
      {},
      "--database-url: target_session_attrs=standby is not served: dealstream writes, so it connects to the primary (read-write)"
    )
    refused(
      { storage: "postgres" },
      { DATABASE_URL: "postgres://app:secret@db1:5432,db2:x/crm" },
      'DATABASE_URL: "db2:x" has no valid port'
    )
  })
})
