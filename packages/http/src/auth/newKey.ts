import { createHash, randomBytes } from "node:crypto"

/** A new API key: `dsk_` and 32 random bytes (base64url), 256 bits beyond any guessing. */
export const newApiKey = (): string => `dsk_${randomBytes(32).toString("base64url")}`

/** What is stored of a key, and what a presented one is looked up by: its SHA-256, 64 lowercase hex digits. */
export const keySha256 = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex")
