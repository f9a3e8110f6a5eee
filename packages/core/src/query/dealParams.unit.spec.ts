import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { ErrorDetail } from "../errors.js"
import type { Expr } from "./ast.js"
import { dealParamsWhere } from "./dealParams.js"
import { catalogOf } from "./fields.js"
import type { ListParams } from "./parseListQuery.js"

const catalog = catalogOf("deal", [])
const whereOf = (params: ListParams): Expr => Result.getOrThrow(dealParamsWhere(params, catalog))
const errorsOf = (params: ListParams): ReadonlyArray<ErrorDetail> => {
  const result = dealParamsWhere(params, catalog)
  return Result.isFailure(result) ? result.failure.details : []
}

describe("dealParamsWhere", () => {
  it("is True without parameters", () => {
    expect(whereOf({ limit: "5" })).toEqual({ _tag: "True" })
  })

  it("turns every parameter into its condition", () => {
    expect(
      whereOf({
        pipeline_id: "pipe_1",
        stage_id: "stage_1",
        owner_id: "usr_1",
        company_id: "comp_1",
        status: "won",
        contact_id: "con_1",
        value_min: "100",
        value_max: "2500.50",
        close_date_from: "2026-01-01",
        close_date_to: "2026-03-31"
      })
    ).toEqual({
      _tag: "And",
      exprs: [
        { _tag: "Compare", field: { name: "pipeline_id", type: "id" }, op: "eq", value: "pipe_1" },
        { _tag: "Compare", field: { name: "stage_id", type: "id" }, op: "eq", value: "stage_1" },
        { _tag: "Compare", field: { name: "owner_id", type: "id" }, op: "eq", value: "usr_1" },
        { _tag: "Compare", field: { name: "company_id", type: "id" }, op: "eq", value: "comp_1" },
        { _tag: "Compare", field: { name: "status", type: "enum" }, op: "eq", value: "won" },
        { _tag: "HasElement", field: { name: "contact_ids", type: "id_array" }, value: "con_1" },
        { _tag: "Compare", field: { name: "value", type: "number" }, op: "gte", value: 100 },
        { _tag: "Compare", field: { name: "value", type: "number" }, op: "lte", value: 2500.5 },
        { _tag: "Compare", field: { name: "expected_close_date", type: "date" }, op: "gte", value: "2026-01-01" },
        { _tag: "Compare", field: { name: "expected_close_date", type: "date" }, op: "lte", value: "2026-03-31" }
      ]
    })
  })

  it("allows an equal lower and upper bound", () => {
    expect(errorsOf({ value_min: "5", value_max: "5", close_date_from: "2026-01-01", close_date_to: "2026-01-01" })).toEqual([])
  })

  it("reports every bad parameter at its name", () => {
    expect(
      errorsOf({
        pipeline_id: "",
        company_id: "",
        status: "closed",
        contact_id: "",
        value_min: "ten",
        value_max: "1,000",
        close_date_from: "2026-02-30",
        close_date_to: "01/03/2026"
      })
    ).toEqual([
      { path: "pipeline_id", message: "must not be empty" },
      { path: "company_id", message: "must not be empty" },
      { path: "status", message: "must be one of open, won, lost" },
      { path: "contact_id", message: "must not be empty" },
      { path: "value_min", message: "must be a number" },
      { path: "value_max", message: "must be a number" },
      { path: "close_date_from", message: "must be a date written YYYY-MM-DD" },
      { path: "close_date_to", message: "must be a date written YYYY-MM-DD" }
    ])
  })

  it("rejects ranges whose upper bound lies below the lower one", () => {
    expect(errorsOf({ value_min: "10", value_max: "9.5" })).toEqual([{ path: "value_max", message: "must not be less than value_min" }])
    expect(errorsOf({ close_date_from: "2026-02-01", close_date_to: "2026-01-31" })).toEqual([
      { path: "close_date_to", message: "must not be less than close_date_from" }
    ])
  })
})
