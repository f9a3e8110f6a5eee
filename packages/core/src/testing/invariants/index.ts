export * from "./rebuild.js"
export * from "./restore.js"
export * from "./timeline.js"
