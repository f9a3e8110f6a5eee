import type { JsonObject } from "../json.js"
import { amountIn, decimalOf, mulDecimal, NO_CURRENCY } from "../money.js"

/** A deal's own number field, or null when it has none that is finite. */
const numberOf = (data: JsonObject, key: string): number | null => {
  const value = data[key]
  return typeof value === "number" && Number.isFinite(value) ? value : null
}

/** The probability a deal's figures use: its own, else its stage's (null when neither is known). */
export const probabilityOf = (data: JsonObject, stageProbability: number | null): number | null =>
  numberOf(data, "probability") ?? stageProbability

/**
 * A deal's `weighted_value`: value × its probability (probabilityOf), exactly, rounded to its
 * currency's minor unit (money.ts) as every figure of it is; null unless both are known.
 */
export const weightedValueOf = (data: JsonObject, stageProbability: number | null): number | null => {
  const value = numberOf(data, "value")
  const probability = probabilityOf(data, stageProbability)
  if (value === null || probability === null) return null
  const currency = data["currency"]
  return amountIn(typeof currency === "string" ? currency : NO_CURRENCY, mulDecimal(decimalOf(value), decimalOf(probability)))
}
