/** Test support for adapters and embedders: the storage contract suite. Needs vitest. */
export { storageContractSuite } from "./storageContract.js"
