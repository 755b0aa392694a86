/**
 * Contract suites of the ports (stores, search, coordination), run unchanged by every adapter's tests (jest globals), and
 * the small model builder they use.
 */
export { describeTenantStoreContract } from './tenant-store.contract.js';
export { describeEventLogContract } from './event-log.contract.js';
export { describeSearchIndexContract } from './search-index.contract.js';
export type { SearchContractTarget } from './search-index.contract.js';
export { buildModel, fieldDef } from './model-builder.js';
export type { ClassSpec } from './model-builder.js';
export { REL, contractModel, storedObject, uuid } from './fixture.js';
export { outboxJob } from './tenant-store/data.js';
export type { ObjectSpec } from './fixture.js';
export { describeWithEngine, itUnlessLacking } from './engines.js';
export { describeBlobStoreContract } from './blob-store.contract.js';
export { describeCoordinationContract } from './coordination.contract.js';
export type { CoordinationContractTarget } from './coordination.contract.js';
export { describeJobQueueContract } from './job-queue.contract.js';
export { describePlatformRegistryContract } from './platform-registry.contract.js';
export { freePort } from './ports.js';
export { LoopTurns } from './loop-turns.js';
export { describeWindowCountersContract } from './window-counters.contract.js';
export { describeReplicationBufferContract } from './replication-buffer.contract.js';
