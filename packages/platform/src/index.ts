export { configFrom, createTenant, objectService, openEmbeddedPlatform, systemAccount } from './embedded.js';
export type { CreatedTenant, EmbeddedOptions } from './embedded.js';
export * from './platform.js';
export type { PlatformServices, ReadinessCheck } from './services.js';
export * from './tenant-runtime.js';
export { createLogger } from './log.js';
export type { Logger } from './log.js';
export { DOCUMENTS_FILE, openPlatformRegistry } from './tenant-stores.js';
export { openOnRedis } from './redis.js';
export {
  loadModelVersion,
  publishModelVersion,
  readModelCandidate,
  storeModelCandidate,
} from './model-versions.js';
export { startWorker } from './worker.js';
export type { WorkerOptions } from './worker.js';
export { CLASS_JOB_KINDS } from './class-jobs.js';
export type { ClassJobKind } from './class-jobs.js';
export { acceptSecretKey } from './secret-key-check.js';
export { tenantDeletion } from './tenant-deletion.js';
export type { TenantDeletion, TenantDeletionResult } from './tenant-deletion.js';
export { ensureDemoTenant } from './demo-tenant.js';
export type { DemoTenant } from './demo-tenant.js';
export { STREAM_RETRY_AFTER_SECONDS, TenantEventStreams } from './event-streams.js';
export { FairShare } from './fair-share.js';
export type { FairShareLimits, RequestKind } from './fair-share.js';
export type { TenantActivity } from './activity-elsewhere.js';
export { SLOT_LEASE_MS, TenantSlots } from './tenant-slots.js';
export type { SharedSlots } from './tenant-slots.js';
export { primaryChannel } from './cluster-coordination.js';
export type { ClusterChannel } from './cluster-coordination.js';
export { ClusterHub } from './cluster-hub.js';
export type { ClusterMember } from './cluster-hub.js';
