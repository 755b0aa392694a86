/**
 * The stack the benchmarked api runs on (`--stack`): `embedded` (the default of `pnpm start`: SQLite
 * documents and search, files on disk, no Redis) or `scale-out` (`ODP_STORE=mongodb`,
 * `ODP_SEARCH=elasticsearch`, `ODP_BLOBS=s3`, `ODP_REDIS_URL`) on the engines tooling/engines starts,
 * found through the `ODP_TEST_*` variables its scripts print. The seed writes the same objects to
 * the stack's document store, and the engine ceilings run on that store in this process.
 */
import path from 'node:path';
import type { NewChangeEvent, SearchIndex, StoredObject, TenantStore } from '@odp/core';
import { DOCUMENTS_FILE } from '@odp/platform';
import { connectMongo, openMongoTenantStore, tenantDatabaseName } from '@odp/store-mongodb';
import type { MongoTenantStore } from '@odp/store-mongodb';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import type { OpenSeedStore } from './seed.js';

export type StackName = 'embedded' | 'scale-out';

/** A tenant's store opened in the benchmark's process, for the engine ceilings. */
export interface EngineStore {
  readonly store: TenantStore;
  /** The search index the api searches on this stack, when this process can measure it. */
  readonly search?: SearchIndex;
  close(): Promise<void>;
}

export interface Stack {
  readonly name: StackName;
  /** What runs where, for the report. */
  readonly description: string;
  /** The api's environment on this stack (beside `ODP_DATA_DIR`). */
  readonly env: Readonly<Record<string, string>>;
  readonly openSeedStore?: OpenSeedStore;
  openEngineStore(tenantId: string, tenantDir: string): Promise<EngineStore>;
  /** Removes what the run left in the engines (the tenants' databases and indexes). */
  forget(tenantIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The variables `--stack scale-out` needs, as tooling/engines prints them. */
const SCALE_OUT_VARIABLES = [
  'ODP_TEST_MONGODB_URL',
  'ODP_TEST_ELASTICSEARCH_URL',
  'ODP_TEST_REDIS_URL',
  'ODP_TEST_S3_ENDPOINT',
  'ODP_TEST_S3_ACCESS_KEY',
  'ODP_TEST_S3_SECRET_KEY',
] as const;

/** Objects per write of the scale-out seed (each write also appends their create events). */
const SCALE_OUT_BATCH = 1000;

export async function openStack(name: string): Promise<Stack> {
  if (name === 'embedded') {
    return {
      name,
      description: 'embedded: SQLite documents and full-text index, files on disk, no Redis',
      env: {},
      openEngineStore: async (_tenantId, tenantDir) => {
        const store = openSqliteTenantStore({ file: path.join(tenantDir, DOCUMENTS_FILE) });
        return { store, search: store.search, close: () => store.close() };
      },
      forget: async () => undefined,
      close: async () => undefined,
    };
  }
  if (name !== 'scale-out') throw new Error(`--stack must be embedded or scale-out, not ${name}.`);
  const missing = SCALE_OUT_VARIABLES.filter((variable) => !process.env[variable]);
  if (missing.length > 0) {
    throw new Error(
      `--stack scale-out needs the engines of tooling/engines, and ${missing.join(', ')} ` +
        `${missing.length === 1 ? 'is' : 'are'} not set: start them with tooling/engines/up.sh and ` +
        'export the variables it writes to $ODP_ENGINES_RUN/env (default /tmp/odp-engines/env).',
    );
  }
  const variable = (key: (typeof SCALE_OUT_VARIABLES)[number]): string => process.env[key] ?? '';
  const client = await connectMongo(variable('ODP_TEST_MONGODB_URL'));
  const engine = process.env['ODP_TEST_MONGODB_ENGINE'] ?? 'a MongoDB wire server';
  const elasticsearch = variable('ODP_TEST_ELASTICSEARCH_URL');
  const open = (tenantId: string): Promise<MongoTenantStore> =>
    openMongoTenantStore({ client, database: tenantDatabaseName(tenantId) });
  return {
    name,
    description: `scale-out: documents on ${engine}, search on Elasticsearch, files on MinIO, Redis`,
    env: {
      ODP_STORE: 'mongodb',
      ODP_MONGODB_URL: variable('ODP_TEST_MONGODB_URL'),
      ODP_SEARCH: 'elasticsearch',
      ODP_ELASTICSEARCH_URL: elasticsearch,
      ODP_REDIS_URL: variable('ODP_TEST_REDIS_URL'),
      ODP_BLOBS: 's3',
      ODP_S3_ENDPOINT: variable('ODP_TEST_S3_ENDPOINT'),
      ODP_S3_BUCKET: 'odp-bench',
      ODP_S3_ACCESS_KEY: variable('ODP_TEST_S3_ACCESS_KEY'),
      ODP_S3_SECRET_KEY: variable('ODP_TEST_S3_SECRET_KEY'),
    },
    // The objects go in with their create events, which the api's search indexer applies to the
    // tenant's Elasticsearch index when it opens the tenant (as it catches up after downtime).
    openSeedStore: async (tenantId) => {
      const store = await open(tenantId);
      return {
        store,
        put: async (objects: StoredObject[]) => {
          for (let from = 0; from < objects.length; from += SCALE_OUT_BATCH) {
            const put = objects.slice(from, from + SCALE_OUT_BATCH);
            const events: NewChangeEvent[] = put.map((object) => ({
              type: 'create',
              objectId: object.id,
              classes: object.classes,
              at: object.createdAt,
            }));
            await store.write({ put, events });
          }
        },
        finish: () => store.close(),
      };
    },
    // The api searches Elasticsearch; this process measures the document store only.
    openEngineStore: async (tenantId) => {
      const store = await open(tenantId);
      return { store, close: () => store.close() };
    },
    forget: async (tenantIds) => {
      for (const tenantId of tenantIds) {
        const store = await open(tenantId);
        await store.drop();
        const alias = `odp-${tenantId.toLowerCase().replace(/[^a-z0-9_-]/g, '_')}`;
        const indexes = await fetch(`${elasticsearch}/_alias/${alias}`);
        if (!indexes.ok) continue;
        for (const index of Object.keys((await indexes.json()) as Record<string, unknown>)) {
          await fetch(`${elasticsearch}/${encodeURIComponent(index)}`, { method: 'DELETE' });
        }
      }
    },
    close: () => client.close(),
  };
}
