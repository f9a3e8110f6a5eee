export * from "./cursor.js"
export * from "./eventTypes.js"
export * from "./feedEvent.js"
export * from "./params.js"
