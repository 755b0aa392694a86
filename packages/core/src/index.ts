export * from './errors.js';
export * from './model.js';
export * from './account.js';
export * from './query.js';
export * from './store.js';
export * from './idempotency.js';
export * from './events.js';
export * from './access.js';
export * from './platform.js';
export type { ModelVersionRecord, ModelVersions } from './model-versions.js';
export * from './search.js';
export * from './index-keys.js';
export * from './blobs.js';
export * from './files.js';
export * from './coordination.js';
export { createInProcessCoordination, Listeners } from './in-process-coordination.js';
export { announcingModelVersions, sharedRegistry } from './shared-registry.js';
export * from './derived.js';
export * from './jobs.js';
export { invalidSearchCursor, purposeKey, seal, unseal } from './sealed.js';
export type { WindowCounters } from './counters.js';
export { EXTERNAL_SERVICES } from './external-services.js';
export {
  DEFAULT_ISOLATED_TASK_NICENESS,
  DEFAULT_ISOLATED_TASKS,
  IsolatedTaskError,
  limitIsolatedTasks,
  setIsolatedTaskNiceness,
  runIsolated,
  serveIsolatedStream,
  serveIsolatedTask,
  streamIsolated,
} from './isolated.js';
export { sourceLoaderArgs, startModuleThread, taskModule } from './task-modules.js';
export type { IsolatedFailure, IsolationLimits } from './isolated.js';
export * from './warehouse.js';
export { STRING_PIECE_CHARS, jsonBytesInSlices, jsonChunksInSlices, jsonInSlices } from './json-in-slices.js';
export { LOOP_SLICE_MS, LoopSlices, mapInSlices } from './loop-slices.js';
export { leadingWithinJsonBytes, writtenJson } from './written-json.js';
export { RememberedReads } from './remembered-reads.js';
export { DEFAULT_IMPORT_LIMITS, DEFAULT_TENANT_IMPORTS, IMPORT_LIMIT_VARIABLES } from './import-limits.js';
export type { ImportLimits } from './import-limits.js';
export { uniqueValuesOf, refuseUniqueValue } from './store-rules/unique-fields.js';
export type { UniqueValue } from './store-rules/unique-fields.js';
export { hiddenDerivedFieldsOf } from './store-rules/hidden-derived.js';
export type { HiddenAlongPaths } from './store-rules/hidden-derived.js';
export { DerivedRebuildLoop } from './store-rules/derived-rebuild.js';
export { idempotencyRecordOf } from './store-rules/idempotency-records.js';
export type { StoredIdempotencyRecord } from './store-rules/idempotency-records.js';
export type { DerivedRebuildSteps } from './store-rules/derived-rebuild.js';
export { parseAllowListEntry } from './network-allow-list.js';
export type { AllowListEntry } from './network-allow-list.js';
