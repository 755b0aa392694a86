/**
 * The job queues `pnpm bench --jobs` measures on a stack: the embedded stack's own (`sqlite`), or on
 * the scale-out stack both networked queues side by side in one run, `agenda` (on the stack's
 * MongoDB) and `redis` (on its Redis), so their figures share the machine's load. Each gets a
 * database or key prefix of its own, and on MongoDB a platform registry database of its own (the
 * run's data directory holds a new secret key, which must not meet secrets stored by other runs),
 * all removed after its rounds.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectMongo } from '@odp/store-mongodb';
import type { Stack } from './stack.js';

export type JobQueueName = 'sqlite' | 'agenda' | 'redis';

export interface BenchQueue {
  readonly name: JobQueueName;
  /** The variables selecting it, added to the stack's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Removes the jobs the run left in it. */
  forget(): Promise<void>;
}

/** `url` naming `database` (the platform registry's database, docs/deployment.md). */
function withDatabase(url: string, database: string): string {
  const [address = '', query] = url.split('?', 2);
  const server = address.replace(/^(mongodb(?:\+srv)?:\/\/[^/]+).*$/, '$1');
  return `${server}/${database}${query === undefined ? '' : `?${query}`}`;
}

/** Drops `databases` from the MongoDB at `url`. */
async function dropDatabases(url: string, databases: readonly string[]): Promise<void> {
  const client = await connectMongo(url);
  try {
    for (const database of databases) await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

export function benchQueues(stack: Stack): BenchQueue[] {
  if (stack.name === 'embedded') {
    // Its file is in the run's data directory, removed with it.
    return [{ name: 'sqlite', env: { ODP_JOBS: 'sqlite' }, forget: async () => undefined }];
  }
  const run = randomUUID().slice(0, 8);
  const mongodbUrl = stack.env['ODP_MONGODB_URL'] ?? '';
  const redisUrl = stack.env['ODP_REDIS_URL'] ?? '';
  const registry = (queue: string) => `odp_bench_jobs_${run}_${queue}_registry`;
  const database = `odp_bench_jobs_${run}`;
  const prefix = `odp-bench:jobs:${run}:`;
  return [
    {
      name: 'agenda',
      env: {
        ODP_JOBS: 'agenda',
        ODP_JOBS_AGENDA_DATABASE: database,
        ODP_MONGODB_URL: withDatabase(mongodbUrl, registry('agenda')),
      },
      forget: () => dropDatabases(mongodbUrl, [database, registry('agenda')]),
    },
    {
      name: 'redis',
      env: {
        ODP_JOBS: 'redis',
        ODP_JOBS_REDIS_PREFIX: prefix,
        ODP_MONGODB_URL: withDatabase(mongodbUrl, registry('redis')),
      },
      async forget() {
        await dropDatabases(mongodbUrl, [registry('redis')]);
        const redis = new Redis(redisUrl);
        try {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
        } finally {
          await redis.quit();
        }
      },
    },
  ];
}
