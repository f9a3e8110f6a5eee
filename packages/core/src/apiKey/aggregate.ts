import { type Aggregate, documentWrite, foldProjection } from "../aggregate.js"
import type { ApiKeyCommand } from "./commands.js"
import { apiKeyDecider, type ApiKeyState } from "./decider.js"
import { ApiKeyEvent } from "./events.js"
import { SYSTEM_WORKSPACE } from "./input.js"
import { projectApiKey } from "./projection.js"

/**
 * API keys live in the reserved workspace. A key's document is stored under its digest, so
 * authenticating a presented key is one getDocument.
 */
export const apiKeyAggregate: Aggregate<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  name: "api_key",
  prefix: "key",
  decider: apiKeyDecider,
  events: ApiKeyEvent,
  project: projectApiKey,
  // The document's id is the digest only the first event holds: a key's stream is two events at most.
  documents: (_stream, { all = [], version }) => {
    const created = all.find((event) => event.type === "api_key.created")
    if (created === undefined) return []
    return [documentWrite("api_key", SYSTEM_WORKSPACE, created.data.key_sha256, version, foldProjection(projectApiKey, all))]
  },
  documentsNeedHistory: () => true,
  collections: ["api_key"],
  rebuilt: false
}
