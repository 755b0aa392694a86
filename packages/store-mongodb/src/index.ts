export { MongoTenantStore, openMongoTenantStore } from './tenant-store.js';
export type { MongoTenantStoreOptions } from './tenant-store.js';
export { MongoUnreachableError, connectMongo, hostsOf, tenantDatabaseName } from './connect.js';
