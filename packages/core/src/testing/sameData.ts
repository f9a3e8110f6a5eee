const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && !(u instanceof Set)

/**
 * Deep equality of data: arrays in order, objects by their own keys in any order (PostgreSQL's
 * jsonb does not keep key order), sets by members.
 */
export const sameData = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameData(x, b[i]))
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameData(a[k], b[k]))
  }
  return false
}
