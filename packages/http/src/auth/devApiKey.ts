import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ApiKey } from "./ApiKeys.js"

export const DEV_WORKSPACE = "dev"

/**
 * The key a host without DEALSTREAM_API_KEYS uses: made once, kept in the data directory (owner
 * read/write only), so restarting `npm start` does not invalidate what the developer copied.
 */
export const loadOrCreateDevApiKey = (dataDir: string): { readonly apiKey: ApiKey; readonly created: boolean; readonly file: string } => {
  const file = join(dataDir, "dev-api-key.json")
  const existing = readKeyFile(file)
  if (existing !== null) return { apiKey: existing, created: false, file }
  const apiKey = { workspaceId: DEV_WORKSPACE, key: `dsk_${randomBytes(24).toString("base64url")}` }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(file, JSON.stringify({ workspace_id: apiKey.workspaceId, api_key: apiKey.key }, null, 2) + "\n", {
    mode: 0o600,
    flag: "wx"
  })
  return { apiKey, created: true, file }
}

const readKeyFile = (file: string): ApiKey | null => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null
    throw new Error(`cannot read ${file}: ${(error as Error).message}`)
  }
  const parsed: unknown = (() => {
    try {
      return JSON.parse(text)
    } catch {
      return null
    }
  })()
  const record = parsed as { workspace_id?: unknown; api_key?: unknown } | null
  if (typeof record?.workspace_id !== "string" || typeof record.api_key !== "string" || record.api_key === "") {
    throw new Error(`${file} is not a dev API key file; delete it to make a new key`)
  }
  return { workspaceId: record.workspace_id, key: record.api_key }
}
