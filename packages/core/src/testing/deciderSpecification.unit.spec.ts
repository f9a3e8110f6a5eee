import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { Decider } from "../decider.js"
import { DeciderSpecification } from "./deciderSpecification.js"
import { NotFound, ValidationError } from "../errors.js"

type Counted = { readonly type: "counted"; readonly data: { readonly by: number } }
const counter: Decider<{ readonly add: number }, Counted, number> = {
  initialState: 0,
  evolve: (total, event) => total + event.data.by,
  decide: ({ add }, total) =>
    add < 0 && total + add < 0
      ? Result.fail(new NotFound({ resource: "counter", id: "c" }))
      : Result.succeed(add === 0 ? [] : [{ type: "counted", data: { by: add } }])
}
const given = DeciderSpecification.for(counter)
const counted = (by: number): Counted => ({ type: "counted", data: { by } })

describe("DeciderSpecification", () => {
  it("passes when the events or the error match", () => {
    given([counted(2)])
      .when({ add: 1 })
      .then([counted(1)])
    given([]).when({ add: 0 }).thenNothingHappens()
    given([counted(1)])
      .when({ add: -2 })
      .thenFails("NotFound", (e) => expect(e.resource).toBe("counter"))
  })

  it("throws with actual and expected when they do not", () => {
    expect(() =>
      given([])
        .when({ add: 1 })
        .then([counted(2)])
    ).toThrow("did not record the expected events")
    expect(() => given([]).when({ add: 1 }).thenNothingHappens()).toThrow()
    expect(() => given([]).when({ add: 1 }).thenFails("NotFound")).toThrow("did not fail with NotFound")
    expect(() => given([]).when({ add: -1 }).thenFails("Conflict")).toThrow()
    expect(() => given([]).when({ add: -1 }).then([])).toThrow()
  })
})

describe("DeciderSpecification.for(decider).given(events)", () => {
  const spec = DeciderSpecification.for(counter)

  it("reads as given-when-then, the call form being the same", () => {
    spec
      .given([counted(2)])
      .when({ add: 1 })
      .then([counted(1)])
    spec.given([]).when({ add: 0 }).thenNothingHappens()
  })

  it("then(error) passes on the same tag and message, and on the same details when it names any", () => {
    spec
      .given([counted(1)])
      .when({ add: -2 })
      .then(new NotFound({ resource: "counter", id: "c" }))
    expect(() =>
      spec
        .given([counted(1)])
        .when({ add: -2 })
        .then(new NotFound({ resource: "counter", id: "other" }))
    ).toThrow("did not fail with NotFound: counter other not found")
    expect(() =>
      spec
        .given([])
        .when({ add: 1 })
        .then(new NotFound({ resource: "counter", id: "c" }))
    ).toThrow()
    expect(() =>
      spec
        .given([counted(1)])
        .when({ add: -2 })
        .then(ValidationError.at("add", "too small"))
    ).toThrow()
    const refusing = DeciderSpecification.for<{ readonly add: number }, Counted, number>({
      ...counter,
      decide: () => Result.fail(ValidationError.at("add", "is too small"))
    })
    refusing.given([]).when({ add: 1 }).then(ValidationError.at("add", "is too small"))
    expect(() =>
      refusing
        .given([])
        .when({ add: 1 })
        .then(
          ValidationError.of([
            { path: "add", message: "is too small" },
            { path: "x", message: "y" }
          ])
        )
    ).toThrow()
  })
})
