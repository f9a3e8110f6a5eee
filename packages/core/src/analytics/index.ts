export * from "./conversion.js"
export * from "./forecast.js"
export * from "./params.js"
export * from "./summary.js"
