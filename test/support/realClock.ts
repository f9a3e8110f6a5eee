import { Clock, Layer } from "effect"

/**
 * The layer built on the real clock, whatever clock the test runs on. A PostgreSQL pool (and any
 * other wire-level machinery) reaps idle connections on a timer: built on a TestClock, each
 * `TestClock.setTime`/`adjust` runs that timer once per period it skips (decades of 60 s periods
 * for a jump to 2026), so the test hangs. The engine and storage still read the time from the
 * calling fiber's clock, so commands run on the test's TestClock.
 */
export const onRealClock = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.provide(layer, Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))
