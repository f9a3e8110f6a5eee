import { it } from "@effect/vitest"
import * as fc from "fast-check"

/**
 * A fast-check property as a vitest test, its arbitraries' values handed over as one tuple.
 * @effect/vitest 4's `it.prop` takes Effect's own Schemas and generators only; fast-check stays the
 * property library here (it is the one the harness gives users), so properties run through this.
 * fast-check's defaults apply (100 runs) unless `options.fastCheck` says otherwise, as with
 * @effect/vitest 3's `it.prop`.
 */
export const prop = <const Ts extends ReadonlyArray<unknown>>(
  name: string,
  arbitraries: { readonly [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  predicate: (values: Ts) => boolean | void,
  options?: { readonly fastCheck?: fc.Parameters<[Ts]> }
) =>
  it(name, () => {
    const tuple = fc.tuple(...(arbitraries as unknown as ReadonlyArray<fc.Arbitrary<unknown>>)) as unknown as fc.Arbitrary<Ts>
    fc.assert(
      fc.property(tuple, (values) => predicate(values)),
      options?.fastCheck
    )
  })
