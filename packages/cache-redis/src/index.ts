export { openRedisCoordination, RedisUnreachableError } from './redis-coordination.js';
export type { RedisCoordinationOptions } from './redis-coordination.js';
