/**
 * The composition root of the tenant document store: which adapter holds every tenant's objects,
 * chosen once from the typed configuration (`ODP_STORE`). Each store keeps its own search index;
 * which index the services search is chosen apart, by `ODP_SEARCH` (search-engine.ts): the store's
 * own by default, or Elasticsearch fed from the store's change events, whichever the store.
 *
 * - `sqlite` (the embedded default): one file `<tenant dir>/documents.sqlite` per tenant, their
 *   write-ahead logs checkpointed by one thread of the process (wal-checkpoints.ts).
 * - `mongodb`: one database `odp_<tenant id>` per tenant on the server of `ODP_MONGODB_URL`, over
 *   one client for the process, connected before the api accepts requests.
 *
 * The platform registry (tenants, profiles, keys, settings) and the DatastoreReplicator's buffer live
 * in the same engine: the data directory's `platform.sqlite` and `replication.sqlite`, or the
 * `odp_platform` database, so api instances and workers on several hosts share them
 * (docs/deployment.md).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type {
  LockReleases,
  PlatformRegistry,
  ReplicationBuffer,
  SearchIndex,
  TenantRecord,
  TenantStore,
} from '@odp/core';
import { ConfigError, platformDatabasePath, replicationDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import type * as StoreMongodb from '@odp/store-mongodb';
import {
  openSqlitePlatformRegistry,
  openSqliteReplicationBuffer,
  openSqliteTenantStore,
  sqliteTenantStoreFiles,
  WalCheckpointThread,
} from '@odp/store-sqlite';

/** A tenant's store with the search index it keeps with its writes (`maintainedByStore`). */
export type TenantStoreWithSearch = TenantStore & { readonly search: SearchIndex };

export interface TenantStores {
  /** Opens (creating when needed) the store of a tenant whose data directory is `dataDir`. */
  open(tenant: TenantRecord, dataDir: string): Promise<TenantStoreWithSearch>;
  /**
   * Deletes everything the store holds of the tenant (tenant deletion); the tenant's store must be
   * closed. Opening it again afterwards starts empty.
   */
  drop(tenant: TenantRecord, dataDir: string): Promise<void>;
  /** Resolves when the engine answers (`GET /ready`); the embedded store has none to ask. */
  verify(): Promise<void>;
  /** Releases what every store shares (the MongoDB client). */
  close(): Promise<void>;
}

/** The embedded store's file inside a tenant's data directory. */
export const DOCUMENTS_FILE = 'documents.sqlite';

/**
 * The stores of the configured adapter; the embedded store's writes hear of other processes'
 * commits through `lockReleases` (the cluster's). With `ODP_STORE=mongodb`, a server that does
 * not answer is a ConfigError naming `ODP_MONGODB_URL` and its hosts (never its credentials), so
 * the process refuses to start with one line.
 */
export async function openTenantStores(config: Config, lockReleases?: LockReleases): Promise<TenantStores> {
  if (config.store.kind === 'sqlite') {
    // One thread of the process checkpoints every tenant's log, off the event loop.
    const checkpointer = new WalCheckpointThread();
    return {
      open: async (_tenant, dataDir) =>
        openSqliteTenantStore({
          file: path.join(dataDir, DOCUMENTS_FILE),
          checkpointer,
          ...(lockReleases ? { lockReleases } : {}),
        }),
      drop: async (_tenant, dataDir) => {
        for (const file of sqliteTenantStoreFiles(path.join(dataDir, DOCUMENTS_FILE)))
          await rm(file, { force: true });
      },
      verify: async () => undefined,
      close: () => checkpointer.close(),
    };
  }
  const { url } = config.store;
  return openOnMongo(async ({ connectMongo, openMongoTenantStore, tenantDatabaseName }) => {
    const client = await connectMongo(url);
    return {
      open: (tenant) => openMongoTenantStore({ client, database: tenantDatabaseName(tenant.id) }),
      drop: async (tenant) => void (await client.db(tenantDatabaseName(tenant.id)).dropDatabase()),
      verify: async () => void (await client.db('admin').command({ ping: 1 })),
      close: () => client.close(),
    };
  });
}

/**
 * The platform registry of `ODP_STORE`; with `mongodb`, a server that does not answer is a
 * ConfigError naming `ODP_MONGODB_URL` (never its credentials).
 */
export async function openPlatformRegistry(config: Config): Promise<PlatformRegistry> {
  if (config.store.kind === 'sqlite') return openSqlitePlatformRegistry(platformDatabasePath(config));
  const { url } = config.store;
  return openOnMongo(({ openMongoPlatformRegistry }) => openMongoPlatformRegistry({ url }));
}

/**
 * The DatastoreReplicator's buffer of `ODP_STORE`: the data directory's `replication.sqlite`, or the
 * `replicationEvents` collection beside the MongoDB registry, so a change buffered by one worker is
 * flushed by whichever worker claims the flush job.
 */
export async function openReplicationBuffer(config: Config): Promise<ReplicationBuffer> {
  if (config.store.kind === 'sqlite') return openSqliteReplicationBuffer(replicationDatabasePath(config));
  const { url } = config.store;
  return openOnMongo(({ openMongoReplicationBuffer }) => openMongoReplicationBuffer({ url }));
}

/**
 * Runs `open` with `@odp/store-mongodb`, imported only when `ODP_STORE=mongodb` selects it (the
 * driver takes long to load, and the embedded default never needs it); a server that does not
 * answer is a ConfigError naming `ODP_MONGODB_URL`.
 */
async function openOnMongo<T>(open: (adapter: typeof StoreMongodb) => Promise<T>): Promise<T> {
  const adapter = await import('@odp/store-mongodb');
  try {
    return await open(adapter);
  } catch (error) {
    if (error instanceof adapter.MongoUnreachableError)
      throw new ConfigError('ODP_MONGODB_URL', error.message);
    throw error;
  }
}
