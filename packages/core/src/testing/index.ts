/** Test support for adapters and embedders: the storage contract suites. Needs vitest. */
export { storageContractSuite } from "./storageContract.js"
export { deliveryQueueContractSuite, OtherHost, sameHost } from "./deliveryQueueContract.js"
export * from "./property.js"
