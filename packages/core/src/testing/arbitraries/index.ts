/**
 * fast-check arbitraries for every aggregate: per command and per event type, one stream's command
 * scripts (in time order, mostly accepted), the valid histories a decider records for them, and
 * the documents those project to. See common.ts for why they are written by hand.
 */
export * from "./common.js"
export * from "./apiKey.js"
export * from "./contact.js"
export * from "./customField.js"
export * from "./deal.js"
export * from "./delivery.js"
export * from "./pipeline.js"
export * from "./webhook.js"
export * from "./workspace.js"
