export { openRedisCoordination } from './redis-coordination.js';
export type { RedisCoordinationOptions } from './redis-coordination.js';
export { RedisUnreachableError } from './connection.js';
export { openRedisWindowCounters } from './redis-counters.js';
export type { RedisWindowCountersOptions } from './redis-counters.js';
