import type { Json, JsonObject } from "../json.js"

/** Reading the rows of a figures query (storage/figures.ts), whichever storage answered them. */

export const textOf = (row: JsonObject, key: string): string | null => {
  const value: Json | undefined = row[key]
  return typeof value === "string" ? value : null
}

export const countOf = (row: JsonObject, key: string): number => {
  const value = row[key]
  return typeof value === "number" ? value : typeof value === "string" ? Number(value) : 0
}

/** An integer sum (milliseconds) as its storage wrote it, text or number. */
export const bigintOf = (row: JsonObject, key: string): bigint => {
  const value = row[key]
  return typeof value === "string" ? BigInt(value) : typeof value === "number" ? BigInt(Math.round(value)) : 0n
}
