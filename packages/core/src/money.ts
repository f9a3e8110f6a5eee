/**
 * Money as the figures count it: amounts per currency, never converted, summed and multiplied
 * exactly in decimal (as PostgreSQL's numeric does, so both storages give one answer), then rounded
 * once, half away from zero, to the currency's minor unit (ISO 4217: 2 for EUR, 0 for JPY, 3 for
 * BHD). Amounts without a currency are counted under "XXX", ISO 4217's code for none.
 */

export const NO_CURRENCY = "XXX"

const minorUnitCache = new Map<string, number>()

/** The currency's minor unit as the runtime's ICU data has it; 2 for "XXX" and for codes it does not know. */
export const minorUnitOf = (currency: string): number => {
  const known = minorUnitCache.get(currency)
  if (known !== undefined) return known
  let digits = 2
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    digits = 2
  }
  minorUnitCache.set(currency, digits)
  return digits
}

/** An exact decimal: `units × 10^-scale`. */
export interface Decimal {
  readonly units: bigint
  readonly scale: number
}

export const ZERO: Decimal = { units: 0n, scale: 0 }

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * The exact value of a number as JSON writes it (its shortest round-trip form, the text PostgreSQL
 * reads into numeric), or of a numeric's text.
 */
export const decimalOf = (value: number | string): Decimal => {
  const match = DECIMAL_TEXT.exec(typeof value === "number" ? String(value) : value)
  if (match === null) throw new Error(`not a decimal: ${String(value)}`)
  const [, sign, whole, fraction = "", exponent = "0"] = match
  const scale = fraction.length - Number(exponent)
  const digits = BigInt(`${sign}${whole}${fraction}`)
  return scale >= 0 ? { units: digits, scale } : { units: digits * 10n ** BigInt(-scale), scale: 0 }
}

const atScale = (d: Decimal, scale: number): bigint => d.units * 10n ** BigInt(scale - d.scale)

export const addDecimal = (a: Decimal, b: Decimal): Decimal => {
  const scale = Math.max(a.scale, b.scale)
  return { units: atScale(a, scale) + atScale(b, scale), scale }
}

export const mulDecimal = (a: Decimal, b: Decimal): Decimal => ({ units: a.units * b.units, scale: a.scale + b.scale })

/** The decimal as exact text (`-12.5`, `0.005`), as PostgreSQL's numeric writes it. */
export const decimalText = (d: Decimal): string => {
  const negative = d.units < 0n
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, "0")
  const whole = digits.slice(0, digits.length - d.scale)
  const fraction = digits.slice(digits.length - d.scale)
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`
}

/** `numerator / denominator` rounded half away from zero to an integer. */
export const divideRounded = (numerator: bigint, denominator: bigint): bigint => {
  const negative = numerator < 0n !== denominator < 0n
  const n = numerator < 0n ? -numerator : numerator
  const d = denominator < 0n ? -denominator : denominator
  const rounded = (2n * n + d) / (2n * d)
  return negative ? -rounded : rounded
}

/** The decimal rounded half away from zero to `places` decimals, as a number. */
export const roundDecimal = (d: Decimal, places: number): number => {
  const units = d.scale <= places ? atScale(d, places) : divideRounded(d.units, 10n ** BigInt(d.scale - places))
  // Through its text: the number closest to the decimal, however many digits it has.
  return Number(`${units}e-${places}`)
}

/** An amount in its currency, rounded to the currency's minor unit. */
export const amountIn = (currency: string, d: Decimal): number => roundDecimal(d, minorUnitOf(currency))

/** Amounts by currency, each rounded once; keys in code order, so the object is the same on every storage. */
export const amountsByCurrency = (sums: ReadonlyMap<string, Decimal>): Record<string, number> =>
  Object.fromEntries([...sums.keys()].sort().map((currency) => [currency, amountIn(currency, sums.get(currency)!)]))

/** Adds `amount` to `currency`'s sum in `sums`. */
export const addTo = (sums: Map<string, Decimal>, currency: string, amount: Decimal): void => {
  sums.set(currency, addDecimal(sums.get(currency) ?? ZERO, amount))
}
