import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describeJobQueueContract, describeWithEngine } from '@odp/testkit';
import { openRedisJobQueue } from './redis-job-queue.js';

describeWithEngine('Redis job queue', 'ODP_TEST_REDIS_URL', (url) => {
  /** Each suite run keeps its keys under a prefix of its own and removes them at the end. */
  const run = `odp-test:jobs:${randomUUID()}:`;
  afterAll(async () => {
    const redis = new Redis(url);
    const keys = await redis.keys(`${run}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  let counter = 0;
  describeJobQueueContract('redis', async (shared) =>
    openRedisJobQueue(url, { prefix: `${run}${shared ?? `queue-${++counter}`}:` }),
  );
});
