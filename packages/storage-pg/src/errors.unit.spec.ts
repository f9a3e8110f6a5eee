import { Duration } from "effect"
import { ConnectionError, SqlError, UniqueViolation } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { isUnavailable, primaryVerdict, reasonOf } from "./errors.js"
import { serverError } from "./internal/sqlState.js"
import { noAnswer } from "./pool.js"

/** A socket's failure as @effect/sql-pg reports it: Node's error under a ConnectionError. */
const socketError = (code: string, message: string) =>
  new SqlError({
    reason: new ConnectionError({
      cause: Object.assign(new Error(message), { code }),
      message: "PgConnection: Socket error",
      operation: "query"
    })
  })

const server = (code: string) => serverError({ code, constraint: null, message: `server said ${code}` })

describe("what a failed statement says of its server", () => {
  it("a socket closed under a statement (EPIPE: written after the server's end) is a lost connection, not a SQLSTATE", () => {
    const closed = socketError("EPIPE", "This socket has been ended by the other party")
    expect(isUnavailable(closed)).toBe(true)
    expect(primaryVerdict(closed)).toBe("lost")
    expect(reasonOf(closed)).toBe("connection closed")
    expect(primaryVerdict(socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"))).toBe("lost")
  })

  it("a server that is no longer a writable primary, or going away, is lost; one that refused a statement is fine", () => {
    for (const code of ["25006", "57P01", "57P02", "57P03", "08006"]) {
      expect(primaryVerdict(server(code)), code).toBe("lost")
      expect(isUnavailable(server(code)), code).toBe(true)
    }
    expect(primaryVerdict(server("23505"))).toBe("fine")
    expect(
      primaryVerdict(new SqlError({ reason: new UniqueViolation({ cause: null, constraint: "x", message: "dup", operation: "query" }) }))
    ).toBe("fine")
    expect(primaryVerdict(server("57014"))).toBe("fine")
  })

  it("no answer in time casts doubt, and is unavailable", () => {
    const silent = noAnswer(Duration.seconds(1))
    expect(primaryVerdict(silent)).toBe("doubt")
    expect(isUnavailable(silent)).toBe(true)
  })
})
