/**
 * `@dealstream/core/testing`: the property-test harness for dealstream's domain and for rules of
 * your own, and the contract suites every storage adapter runs.
 *
 * - `DeciderSpecification.for(decider).given(events).when(command).then(events | error)`;
 * - fast-check arbitraries for every aggregate's commands, events, histories and documents
 *   (`dealArbitraries`, `contactArbitraries`, …), written by hand (see arbitraries/common.ts);
 * - `traceCommands`: a stream's commands decided, evolved and projected as the engine does, in memory;
 * - the model-based runner `checkModel`/`assertModel`: random command sequences for a workspace
 *   (`workspaceCommands`) against an engine on any storage layer, invariants checked after every
 *   command (`standardInvariants`, `everyDeal` for your own), a failure shrunk to a short sequence;
 * - the invariants dealstream relies on, as checks that return what is wrong (`timelineProblems`,
 *   `restoreProblems`, `incrementalProblems`);
 * - `prop`, a fast-check property as a vitest test (needs vitest), and the storage contract suites.
 *
 * fast-check is a peer dependency (`npm install -D fast-check`); vitest only for `prop` and the suites.
 */
export { DeciderSpecification, type Expected, type Outcome } from "./deciderSpecification.js"
export * from "./arbitraries/index.js"
export * from "./invariants/index.js"
export * from "./trace.js"
export * from "./model/index.js"
export { sameData } from "./sameData.js"
export { storageContractSuite } from "./storageContract.js"
export { deliveryQueueContractSuite, OtherHost, sameHost } from "./deliveryQueueContract.js"
export * from "./property.js"
