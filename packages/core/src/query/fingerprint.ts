import type { Expr, SortSpec } from "./ast.js"

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

const offsetBasis = 0xcbf29ce484222325n
const prime = 0x100000001b3n
const mask = 0xffffffffffffffffn

/** 64-bit FNV-1a over the UTF-16 code units (low byte, then high byte), as 16 hex digits. */
export const fnv1a64 = (text: string): string => {
  let hash = offsetBasis
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    hash = ((hash ^ BigInt(unit & 0xff)) * prime) & mask
    hash = ((hash ^ BigInt(unit >> 8)) * prime) & mask
  }
  return hash.toString(16).padStart(16, "0")
}

/** Identifies what a cursor was made for: the whole where, the sort and the scope, not the limit. */
export const queryFingerprint = (where: Expr, sort: SortSpec, scope: "live" | "deleted"): string =>
  fnv1a64(canonicalJson({ where, sort, scope }))
