export * from "./recordHistory.js"
