import { describe, expect, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect } from "effect"
import { testSqlLayer } from "../../../test/support/pg.js"
import { asElements, asText } from "./readOnWorker.js"

// On Citus a read is run by ds_read_in with its parameters as the elements of one text array
// (readOnWorker.ts): each must come back as the type its statement casts it to, and a dollar sign in a
// string literal must stay as it is. Here the statement is bound as ds_read_in's EXECUTE binds it.

const awkward = ['a"b', "c\\d", "e,f", "{g}", "NULL", " h ", "ü", ""]

describe("a read's parameters as one text array", () => {
  it.layer(testSqlLayer)((it) => {
    it.effect("arrays, numbers, booleans and text come back as the statement casts them", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const query = asElements(
          "SELECT $1::text[] AS texts, $2::int + 1 AS n, $3::numeric AS x, $4::boolean AS b, $5::boolean[] AS bs, $6::text AS t, $7::text AS absent, '$1 Z$' AS literal"
        )
        expect(query).toContain("'$1 Z$'")
        const params = [awkward, 41, "0.1", true, [true, false], "it's", null].map(asText)
        const [row] = yield* sql.unsafe<Record<string, unknown>>(query, [params])
        expect(row).toEqual({
          texts: awkward,
          n: 42,
          x: "0.1",
          b: true,
          bs: [true, false],
          t: "it's",
          absent: null,
          literal: "$1 Z$"
        })
      })
    )
  })
})

describe("asElements", () => {
  it("numbers parameters past nine and leaves quoted text alone, doubled quotes included", () => {
    expect(asElements("SELECT $12, 'it''s $3', $3")).toBe("SELECT $1[12], 'it''s $3', $1[3]")
  })
})
