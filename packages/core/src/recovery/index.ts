export * from "./aggregate.js"
export * from "./commands.js"
export * from "./decider.js"
export * from "./events.js"
