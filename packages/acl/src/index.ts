export { TenantAccessControl } from './tenant-access-control.js';
export type { AclStore } from './tenant-access-control.js';
export { AclPolicy, roleAllows, rolesOf } from './decisions.js';
export { AclDerivation, isAnchored } from './derive.js';
export type { AnchoredDef, AnchorHoldings } from './derive.js';
export { aclWriteParts } from './maintain.js';
export type { AclWriteParts } from './maintain.js';
export { storeGraph, pendingGraph } from './graph.js';
export type { AclGraph, IncomingLink } from './graph.js';
export { HeldAcIdCache } from './held-cache.js';
export { rebuildAccessControl } from './rebuild.js';
export type { RebuildOptions } from './rebuild.js';
export { RebuildTracker } from './jobs.js';
export type { RebuildStatus } from './jobs.js';
export { anchoredAcId, pathlessAcId } from './ids.js';
export type {
  AccessControlReport,
  AuditGrant,
  AuditHolder,
  DefinitionReport,
  NodeReport,
  RecordAccessReport,
  RelationPair,
} from './audit.js';
