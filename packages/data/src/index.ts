export { DataResources } from './resources/data-resources.js';
export type {
  AggregationsResponse,
  DataObjectPage,
  DistinctResponse,
  GetOneResult,
  ListPath,
  WrittenResource,
} from './resources/data-resources.js';
export type { BatchResult } from './resources/batch-request.js';
export { ObjectService } from './objects/object-service.js';
export type { ObjectPage } from './objects/reads.js';
export type {
  CreateOptions,
  CreateParent,
  ObjectTarget,
  WriteOperation,
  WrittenObject,
} from './objects/writes.js';
export type { IdempotencyKeyUse } from './objects/keyed-writes.js';
export { parseEntityTags, versionTag } from './objects/versions.js';
export type { IfMatch } from './objects/versions.js';
export type { ReportContext } from './objects/report-contexts.js';
export type { EventPage, StreamEvent, StreamOptions } from './event-pages.js';
export type { DataObject } from './render.js';
export { EXPORT_PAGE_SIZE, Tabular, matchKey, sheetColumns } from './tabular.js';
export type { ExportSheet, ImportTarget, SheetColumns } from './tabular.js';
export type { GlobalSearchPage } from './search.js';
export type { DataLimits, DataServiceDeps } from './deps.js';
export { unrestrictedPolicy } from './unrestricted-policy.js';
export { ChangeSignal } from './change-signal.js';
export { SecretCipher } from './secret-cipher.js';
export { relayOutbox } from './outbox.js';
export { GATEWAY_JOB, gatewayScripts } from './scripts.js';
export type { GatewayJobPayload, GatewayScript } from './scripts.js';
export {
  NamedObjects,
  rememberedSettings,
  secretValueReader,
  systemSettingReader,
} from './system-settings.js';
export type { NamedObjectFinder } from './system-settings.js';
export { unsealParameters } from './scripts.js';
