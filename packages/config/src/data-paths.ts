import path from 'node:path';
import type { Config } from './config-types.js';

/** Directory of one tenant's embedded data (documents, files): `<dataDir>/tenants/<id>`. */
export function tenantDataDir(config: Pick<Config, 'dataDir'>, tenantId: string): string {
  return path.join(config.dataDir, 'tenants', tenantId);
}

/** Root of the embedded blob store (`ODP_BLOBS=fs`): `<dataDir>/blobs`. */
export function blobsDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'blobs');
}

/** Path of the platform registry database (tenants, profiles, keys): `<dataDir>/platform.sqlite`. */
export function platformDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'platform.sqlite');
}

/** Path of the embedded rate-limit counters (without `ODP_REDIS_URL`): `<dataDir>/counters.sqlite`. */
export function countersDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'counters.sqlite');
}

/**
 * Path of the embedded leases (without `ODP_REDIS_URL`), shared by the processes of one machine:
 * `<dataDir>/leases.sqlite`.
 */
export function leasesDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'leases.sqlite');
}

/** Path of the embedded job queue database (jobs of every tenant): `<dataDir>/jobs.sqlite`. */
export function jobsDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'jobs.sqlite');
}

/**
 * Path of the buffer of the DatastoreReplicator (changes waiting for their warehouse flush):
 * `<dataDir>/replication.sqlite`.
 */
export function replicationDatabasePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'replication.sqlite');
}

/** Directory of the embedded warehouse (one DuckDB file per `_projectId`): `<dataDir>/warehouse`. */
export function warehouseDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'warehouse');
}
