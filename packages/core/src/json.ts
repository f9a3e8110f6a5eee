/** JSON values as they cross the storage and HTTP boundaries. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject
export interface JsonObject {
  readonly [key: string]: Json
}

export const isJsonObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
