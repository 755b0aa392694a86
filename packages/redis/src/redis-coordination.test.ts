import type { Coordination } from '@odp/core';
import { describeCoordinationContract, describeWithEngine, freePort } from '@odp/testkit';
import { RedisUnreachableError } from './connection.js';
import { openRedisCoordination } from './redis-coordination.js';

describeWithEngine('Redis coordination', 'ODP_TEST_REDIS_URL', (url) => {
  describeCoordinationContract('redis (two connections to one server)', {
    open: () => openRedisCoordination(url),
  });

  it('delivers a change published while the subscriber is busy, in order', async () => {
    const a = await openRedisCoordination(url);
    const b = await openRedisCoordination(url);
    try {
      const heads: string[] = [];
      await b.changes.subscribe('tenant-order', (head) => heads.push(head));
      await Promise.all(Array.from({ length: 50 }, (_, i) => a.changes.publish('tenant-order', String(i))));
      const deadline = Date.now() + 2000;
      while (heads.length < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(heads).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('openRedisCoordination without a server', () => {
  it('refuses with one line naming host and port, never the password', async () => {
    const port = await freePort();
    let thrown: unknown;
    let opened: Coordination | undefined;
    try {
      opened = await openRedisCoordination(`redis://:hunter2@127.0.0.1:${port}`, { connectTimeoutMs: 2000 });
    } catch (error) {
      thrown = error;
    }
    await opened?.close();
    expect(thrown).toBeInstanceOf(RedisUnreachableError);
    const message = (thrown as Error).message;
    expect(message).toBe(`no Redis answers at 127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
