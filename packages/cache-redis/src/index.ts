export { openRedisCoordination, RedisUnreachableError } from './redis-coordination.js';
export type { RedisCoordinationOptions } from './redis-coordination.js';
export { openRedisJobQueue, RedisJobQueue } from './redis-job-queue.js';
export type { RedisJobQueueOptions } from './redis-job-queue.js';
