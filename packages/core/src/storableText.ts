import type { JsonObject } from "./json.js"

// U+0000, or a surrogate half without its partner.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL cannot store in text, so it is matched on purpose.
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether storage can keep (and compare with) this text: no U+0000 and no unpaired surrogate. */
export const isStorableText = (text: string): boolean => !unstorable.test(text)

const child = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`)

/**
 * The path of the first string (value or key) that no storage can keep: PostgreSQL's jsonb refuses
 * U+0000, and a lone surrogate is not text at all (JSON.parse lets `"\ud800"` through). Refusing them
 * at the door keeps every storage answering the same 400 instead of one of them failing with a 500.
 */
export const unstorableTextPath = (value: unknown, path = ""): string | null => {
  if (typeof value === "string") return unstorable.test(value) ? path : null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextPath(value[i], child(path, i))
      if (found !== null) return found
    }
    return null
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value as JsonObject)) {
      if (unstorable.test(key)) return child(path, key)
      const found = unstorableTextPath(inner, child(path, key))
      if (found !== null) return found
    }
  }
  return null
}
