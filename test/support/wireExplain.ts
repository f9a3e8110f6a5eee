import { connect, type Socket } from "node:net"
import type { LoggedStatement } from "./statementLog.js"

/**
 * `EXPLAIN (FORMAT JSON)` of a logged statement with the very values it was run with: the Parse and
 * Bind go out again as the storage's driver sent them (its parameter types, its binary values), so
 * no value is turned into text and typed anew on the way. A connection of its own, speaking the
 * protocol itself (trust authentication, as the test clusters use).
 */
export interface WireExplain {
  /** The plan's JSON (the array EXPLAIN answers), or the server's error message as a failure. */
  readonly explain: (statement: LoggedStatement) => Promise<unknown>
  /** Runs statements without parameters (the simple protocol), answering rows' first column as text. */
  readonly query: (text: string) => Promise<ReadonlyArray<string | null>>
  readonly close: () => void
}

class ServerError extends Error {}

const frame = (type: string, ...parts: ReadonlyArray<Buffer>): Buffer => {
  const body = Buffer.concat(parts)
  const head = Buffer.alloc(5)
  head.write(type, 0, "latin1")
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const cString = (text: string) => Buffer.from(`${text}\0`, "utf8")
const int16 = (value: number) => {
  const buffer = Buffer.alloc(2)
  buffer.writeInt16BE(value)
  return buffer
}
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4)
  buffer.writeInt32BE(value)
  return buffer
}
const uint32 = (value: number) => {
  const buffer = Buffer.alloc(4)
  buffer.writeUInt32BE(value)
  return buffer
}

export const openWireExplain = async (url: string): Promise<WireExplain> => {
  const { hostname, port, pathname, username } = new URL(url)
  const socket: Socket = connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject))
  let pending = Buffer.alloc(0)
  let waiting: (() => void) | null = null
  let closed = false
  socket.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    waiting?.()
  })
  socket.on("close", () => {
    closed = true
    waiting?.()
  })
  /** The next backend message. */
  const next = async (): Promise<{ readonly type: string; readonly body: Buffer }> => {
    while (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) {
      if (closed) throw new Error("the server closed the connection")
      await new Promise<void>((resolve) => {
        waiting = resolve
      })
      waiting = null
    }
    const length = pending.readInt32BE(1)
    const message = { type: String.fromCharCode(pending[0]!), body: pending.subarray(5, 1 + length) }
    pending = pending.subarray(1 + length)
    return message
  }
  /** Rows' first column until ReadyForQuery; an ErrorResponse fails with its message. */
  const answer = async (): Promise<ReadonlyArray<string | null>> => {
    const rows: Array<string | null> = []
    let error: string | null = null
    for (;;) {
      const { type, body } = await next()
      if (type === "Z") break
      if (type === "E") {
        const fields = body.toString("utf8").split("\0")
        const where = fields.find((field) => field.startsWith("W"))?.slice(1)
        error = `${fields.find((field) => field.startsWith("M"))?.slice(1) ?? "error"}${where === undefined ? "" : ` (${where})`}`
      }
      if (type === "D") {
        const length = body.readInt32BE(2)
        rows.push(length < 0 ? null : body.toString("utf8", 6, 6 + length))
      }
    }
    if (error !== null) throw new ServerError(error)
    return rows
  }
  const user = decodeURIComponent(username) || "postgres"
  const startup = Buffer.concat([
    int32(196608),
    cString("user"),
    cString(user),
    cString("database"),
    cString(pathname.slice(1)),
    cString("")
  ])
  socket.write(Buffer.concat([int32(startup.length + 4), startup]))
  await answer()
  const query = (text: string) => {
    socket.write(frame("Q", cString(text)))
    return answer()
  }
  /** `text` with the logged statement's parameter types and values; rows as text. */
  const extended = (text: string, statement: LoggedStatement) => {
    socket.write(
      Buffer.concat([
        frame("P", cString(""), cString(text), int16(statement.parameterTypes.length), ...statement.parameterTypes.map(uint32)),
        frame(
          "B",
          cString(""),
          cString(""),
          int16(statement.formats.length),
          ...statement.formats.map(int16),
          int16(statement.values.length),
          ...statement.values.flatMap((value) => (value === null ? [int32(-1)] : [int32(value.length), value])),
          // No result format codes: every column as text
          int16(0)
        ),
        frame("E", cString(""), int32(0)),
        frame("S")
      ])
    )
    return answer()
  }
  const explain = async (statement: LoggedStatement) => {
    const [plan] = await extended(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement)
    return JSON.parse(plan ?? "null") as unknown
  }
  return {
    explain,
    query,
    close: () => {
      socket.end(frame("X"))
    }
  }
}
