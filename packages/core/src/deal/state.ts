import type { JsonObject } from "../json.js"

/** A deal as its decider and the deal rules see it: never written, live, in the trash, or purged. */
export type DealState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly fields: JsonObject }
  | { readonly status: "deleted"; readonly fields: JsonObject; readonly deletedAt: string }
  | { readonly status: "purged" }
