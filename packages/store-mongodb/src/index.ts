export { MongoTenantStore, openMongoTenantStore } from './tenant/store.js';
export type { MongoTenantStoreOptions } from './tenant/store.js';
export { MongoPlatformRegistry, openMongoPlatformRegistry, PLATFORM_DATABASE } from './platform/registry.js';
export type { MongoPlatformRegistryOptions } from './platform/registry.js';
export { MongoUnreachableError, connectMongo, databaseOf, hostsOf, tenantDatabaseName } from './connect.js';
export { MongoReplicationBuffer, openMongoReplicationBuffer } from './replication-buffer.js';
export type { MongoReplicationBufferOptions } from './replication-buffer.js';
