/**
 * The job queue `pnpm bench --jobs` measures on a stack: the embedded stack's own (`sqlite`), or on
 * the scale-out stack `agenda` (on the stack's MongoDB), with a database of its own and a platform
 * registry database of its own (the run's data directory holds a new secret key, which must not
 * meet secrets stored by other runs), both removed after its rounds.
 */
import { randomUUID } from 'node:crypto';
import { connectMongo } from '@odp/store-mongodb';
import type { Stack } from './stack.js';

export type JobQueueName = 'sqlite' | 'agenda';

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
  const registry = (queue: string) => `odp_bench_jobs_${run}_${queue}_registry`;
  const database = `odp_bench_jobs_${run}`;
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
  ];
}
