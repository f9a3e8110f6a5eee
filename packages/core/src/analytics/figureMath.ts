import { addTo, amountsByCurrency, type Decimal, decimalOf, divideRounded, NO_CURRENCY } from "../money.js"

/** The figures' own roundings (API.md: days with two decimals); money's are money.ts's. */

const DAY_MILLIS = 86_400_000n

/** `hundredths / 100` as the number its text reads as. */
const fromHundredths = (hundredths: bigint): number => Number(`${hundredths}e-2`)

/** The mean of `count` durations summing to `totalMillis`, in days with two decimals; null for none. */
export const meanDays = (totalMillis: bigint, count: number): number | null =>
  count === 0 ? null : fromHundredths(divideRounded(totalMillis * 100n, BigInt(count) * DAY_MILLIS))

/** A duration in days with two decimals (a median may be a half millisecond). */
export const days = (millis: number): number => fromHundredths(divideRounded(BigInt(Math.round(millis * 2)) * 100n, 2n * DAY_MILLIS))

/** A share with four decimals; null when there is nothing to share. */
export const rate = (part: number, whole: number): number | null =>
  whole === 0 ? null : Number(`${divideRounded(BigInt(part) * 10_000n, BigInt(whole))}e-4`)

/** Adds an exact amount (a row's decimal text) to its currency's sum; a value without a currency counts as "XXX". */
export const addAmount = (sums: Map<string, Decimal>, currency: string | null, amount: string | null): void => {
  if (amount !== null) addTo(sums, currency ?? NO_CURRENCY, decimalOf(amount))
}

/** Sums of money by currency as a figure answers them (`{"EUR": 1200.5}`). */
export const moneyJson = (sums: ReadonlyMap<string, Decimal>): Record<string, number> => amountsByCurrency(sums)
