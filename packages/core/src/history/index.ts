export * from "./recordHistory.js"
export * from "./recordAsOf.js"
