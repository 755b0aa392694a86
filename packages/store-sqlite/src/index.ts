export * from './migrations.js';
export * from './platform/registry.js';
export * from './tenant/store.js';
export * from './tenant/search.js';
export * from './job-queue.js';
export * from './window-counters.js';
export * from './replication-buffer.js';
export * from './leases.js';
