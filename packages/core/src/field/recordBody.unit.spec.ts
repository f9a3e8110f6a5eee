import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { text } from "./checks.js"
import { recordCreateParser, recordPatchParser, recordShape } from "./recordBody.js"
import type { RecordFields } from "./table.js"
import { fieldTable } from "./table.js"

// A record type of the smallest kind: what a new one needs is one table like this.
const ticket: RecordFields = {
  object: "contact",
  standard: fieldTable([
    { name: "id", type: "id" },
    { name: "subject", type: "text", check: text(10), required: true },
    { name: "assignee", type: "id", check: text(10), absent: null },
    { name: "note", type: "text", check: text(10), nullable: true },
    { name: "priority", type: "text", check: text(10), absent: "normal" },
    { name: "created_at", type: "timestamp" }
  ]),
  computed: ["replies"]
}

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string; message: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => `${d.path} ${d.message}`) : []

describe("record bodies read off a field table", () => {
  it("requires the required fields on creation only; read-only and computed keys are named so", () => {
    const shape = recordShape(ticket, "create")
    expect(Object.keys(shape.standard)).toEqual(["subject", "assignee", "note", "priority"])
    expect(shape.required).toEqual(["subject"])
    expect(shape.readOnly).toEqual(["id", "subject", "assignee", "note", "priority", "created_at", "replies"])
    expect(recordShape(ticket, "patch").required).toEqual([])
  })

  it("fills a new record's absent fields in table order, custom keys after", () => {
    const parse = recordCreateParser(ticket)
    expect(parse({ note: "n", subject: "s" }, [])).toEqual(
      Result.succeed({
        subject: "s",
        assignee: null,
        note: "n",
        priority: "normal"
      })
    )
  })

  it("takes null on creation where leaving the field out means null, on a patch where it is nullable", () => {
    const create = recordCreateParser(ticket)
    const patch = recordPatchParser(ticket)
    expect(Result.isSuccess(create({ subject: "s", assignee: null, note: null }, []))).toBe(true)
    expect(paths(create({ subject: null, priority: null }, []))).toEqual(["subject must be a string", "priority must be a string"])
    expect(paths(patch({ assignee: null, note: null, id: "x", replies: [] }, []))).toEqual([
      "assignee must be a string",
      "id is read-only",
      "replies is read-only"
    ])
    expect(patch({ note: null }, [])).toEqual(Result.succeed({ note: null }))
  })
})
