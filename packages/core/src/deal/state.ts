import type { JsonObject } from "../json.js"

/**
 * A deal as its decider and the deal rules see it: never written, live, in the trash, or purged.
 * `reopenTo` is the open stage it was in when it last closed (closing.ts): where a status set back
 * to open takes it out of a closing stage.
 */
export type DealState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly fields: JsonObject; readonly reopenTo?: string }
  | { readonly status: "deleted"; readonly fields: JsonObject; readonly deletedAt: string; readonly reopenTo?: string }
  | { readonly status: "purged" }
