/**
 * Test support for adapters and embedders: decider specifications, the storage contract suites
 * (they need vitest) and `prop` for fast-check properties.
 */
export { DeciderSpecification, type Outcome } from "./deciderSpecification.js"
export { storageContractSuite } from "./storageContract.js"
export { deliveryQueueContractSuite, OtherHost, sameHost } from "./deliveryQueueContract.js"
export * from "./property.js"
