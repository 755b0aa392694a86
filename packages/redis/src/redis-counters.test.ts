import { randomUUID } from 'node:crypto';
import { describeWindowCountersContract, describeWithEngine } from '@odp/testkit';
import { openRedisWindowCounters } from './redis-counters.js';

describeWithEngine('Redis window counters', 'ODP_TEST_REDIS_URL', (url) => {
  describeWindowCountersContract('redis (a key prefix per set of counters)', (shared) =>
    openRedisWindowCounters(url, { prefix: `odp-test:counters:${shared ?? randomUUID()}:` }),
  );
});
