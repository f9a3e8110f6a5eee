import { describe, expect, it } from "vitest"
import { targetOf } from "./errors.js"
import { databaseHosts, HostsProblem, withHosts } from "./hosts.js"

describe("database URLs with several hosts", () => {
  it("gives one ordinary URL per host, all else as written", () => {
    const url = "postgres://app:p%40ss@db1.internal:5432,db2.internal:5433/crm?target_session_attrs=read-write&sslmode=disable"
    const { hosts, targetSessionAttrs, urlOf } = databaseHosts(url)
    expect(hosts).toEqual([
      { host: "db1.internal", port: 5432 },
      { host: "db2.internal", port: 5433 }
    ])
    expect(targetSessionAttrs).toBe("read-write")
    expect(hosts.map(urlOf)).toEqual([
      "postgres://app:p%40ss@db1.internal:5432/crm?target_session_attrs=read-write&sslmode=disable",
      "postgres://app:p%40ss@db2.internal:5433/crm?target_session_attrs=read-write&sslmode=disable"
    ])
    // Each is a URL the driver's parser takes.
    for (const host of hosts) expect(URL.canParse(urlOf(host))).toBe(true)
  })

  it("takes IPv6 addresses in brackets and a host without a port as 5432", () => {
    const { hosts, urlOf } = databaseHosts("postgresql://u@[::1]:6432,10.0.0.2,[fd00::5]/db")
    expect(hosts).toEqual([
      { host: "::1", port: 6432 },
      { host: "10.0.0.2", port: 5432 },
      { host: "fd00::5", port: 5432 }
    ])
    expect(hosts.map(urlOf)).toEqual([
      "postgresql://u@[::1]:6432/db",
      "postgresql://u@10.0.0.2:5432/db",
      "postgresql://u@[fd00::5]:5432/db"
    ])
  })

  it("leaves a URL with one host exactly as it is", () => {
    const url = "postgres://app:secret@db.internal:5432/crm?target_session_attrs=read-write"
    const { hosts, urlOf } = databaseHosts(url)
    expect(hosts).toEqual([{ host: "db.internal", port: 5432 }])
    expect(urlOf(hosts[0]!)).toBe(url)
  })

  it("refuses a host list it cannot read, or one that asks for standbys, never echoing the URL", () => {
    const problem = (url: string) => {
      try {
        databaseHosts(url)
      } catch (error) {
        if (error instanceof HostsProblem) return error.message
        throw error
      }
      return null
    }
    expect(problem("postgres://u:secret@h1:5432,,h2/db")).toBe("the host list has an empty entry")
    expect(problem("postgres://u:secret@h1:5432,h2:99999/db")).toBe(`"h2:99999" has no valid port`)
    expect(problem("postgres://u:secret@h1,h2/db?target_session_attrs=standby")).toBe(
      "target_session_attrs=standby is not served: dealstream writes, so it connects to the primary (read-write)"
    )
    for (const attrs of ["read-write", "primary", "any"]) expect(problem(`postgres://u@h1,h2/db?target_session_attrs=${attrs}`)).toBeNull()
  })

  it("replaces the host part with DEALSTREAM_DATABASE_HOSTS", () => {
    expect(withHosts("postgres://app:secret@ignored:5432/crm?sslmode=disable", "h1:5432, h2:5433")).toBe(
      "postgres://app:secret@h1:5432,h2:5433/crm?sslmode=disable"
    )
    expect(withHosts("postgres://app@old1,old2/crm", "[::1]:5433")).toBe("postgres://app@[::1]:5433/crm")
    expect(() => withHosts("postgres://app@db/crm", "h1:5432,")).toThrow(HostsProblem)
  })

  it("names every host, never the password, in messages", () => {
    expect(targetOf("postgres://app:secret@h1:5432,h2:5433/crm?target_session_attrs=read-write")).toBe("h1:5432,h2:5433/crm")
    expect(targetOf("postgres://app:secret@db.internal:6000/crm")).toBe("db.internal:6000/crm")
  })
})
