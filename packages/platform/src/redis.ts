/**
 * Opening anything on the Redis of `ODP_REDIS_URL` (coordination, job queue, rate-limit counters):
 * `@odp/redis` and its client are imported only then, as the configuration selects them
 * (most installations run without Redis, and the client takes long to load); a server that does
 * not answer is a ConfigError naming `ODP_REDIS_URL`, so a process refuses to start with one line.
 */
import { ConfigError } from '@odp/config';
import type * as RedisAdapters from '@odp/redis';

export async function openOnRedis<T>(open: (adapter: typeof RedisAdapters) => Promise<T>): Promise<T> {
  const adapter = await import('@odp/redis');
  try {
    return await open(adapter);
  } catch (error) {
    if (error instanceof adapter.RedisUnreachableError) throw new ConfigError('ODP_REDIS_URL', error.message);
    throw error;
  }
}
