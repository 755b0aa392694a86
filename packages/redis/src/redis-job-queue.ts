/**
 * The JobQueue on Redis (`ODP_JOBS=redis`, docs/worker.md): one queue for every api and worker
 * process of a scale-out deployment, on any number of machines.
 *
 * Keys (prefix `odp:jobs:` unless told otherwise):
 * - `job:<id>`: a hash with the job (times as epoch milliseconds);
 * - `due`: a sorted set of the jobs a claim may take, scored by when: `runAt` of a pending job,
 *   the lease end of a running one (so a dead worker's job becomes due when its lease ends);
 * - `tenant:<tenant>` and `object:<tenant>:<object>`: sorted sets by arrival (`seq`), for lists;
 * - `finished`: done and failed jobs by the time they finished, for `prune`.
 *
 * Every operation is one Lua script, atomic on the server: a claim takes the earliest due job and
 * leases it in one step, so two workers never hold the same job while its lease holds; `complete`
 * and `fail` act only for the lease holder. The clock is the caller's (`now`), as in the SQLite
 * queue, so tests move time instead of waiting.
 *
 * Durability is Redis's: with `appendonly yes` and `appendfsync always` an enqueued job survives a
 * crash of Redis once `enqueue` resolved (the outbox entry it came from is removed only then);
 * with `appendfsync everysec` the last second can be lost.
 */
import { Redis } from 'ioredis';
import type { Job, JobListFilter, JobQueue, JobStatus, NewJob } from '@odp/core';
import { RedisUnreachableError, connectOnce, describeTarget, reason } from './connection.js';

/** KEYS: job, due, tenant, object (or ''), seq. ARGV: id, tenant, kind, object, payload, createdAt, runAt. */
const ENQUEUE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'tenantId', ARGV[2], 'kind', ARGV[3], 'objectId', ARGV[4],
  'payload', ARGV[5], 'createdAt', ARGV[6], 'status', 'pending', 'attempts', 0, 'runAt', ARGV[7],
  'leaseUntil', '', 'lockedBy', '', 'lastError', '', 'updatedAt', ARGV[8], 'seq', seq)
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[1])
redis.call('ZADD', KEYS[3], seq, ARGV[1])
if KEYS[4] ~= '' then redis.call('ZADD', KEYS[4], seq, ARGV[1]) end
return 1`;

/** KEYS: due. ARGV: prefix, now, leaseMs, worker. Returns the claimed job's fields or nil. */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, 1)
if #ids == 0 then return nil end
local key = ARGV[1] .. 'job:' .. ids[1]
local lease = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('HINCRBY', key, 'attempts', 1)
redis.call('HSET', key, 'status', 'running', 'leaseUntil', lease, 'lockedBy', ARGV[4], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[1], lease, ids[1])
return redis.call('HGETALL', key)`;

/** KEYS: job, due, finished. ARGV: id, worker, now. */
const COMPLETE = `
local state = redis.call('HMGET', KEYS[1], 'status', 'lockedBy')
if state[1] ~= 'running' or state[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'done', 'leaseUntil', '', 'lockedBy', '', 'updatedAt', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1`;

/** KEYS: job, due, finished. ARGV: id, worker, now, error, retryAt ('' to give up). */
const FAIL = `
local state = redis.call('HMGET', KEYS[1], 'status', 'lockedBy')
if state[1] ~= 'running' or state[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'leaseUntil', '', 'lockedBy', '', 'lastError', ARGV[4], 'updatedAt', ARGV[3])
if ARGV[5] == '' then
  redis.call('HSET', KEYS[1], 'status', 'failed')
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
else
  redis.call('HSET', KEYS[1], 'status', 'pending', 'runAt', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
end
return 1`;

/** KEYS: finished. ARGV: prefix, before. Removes finished jobs and their index entries. */
const PRUNE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
for _, id in ipairs(ids) do
  local key = ARGV[1] .. 'job:' .. id
  local owner = redis.call('HMGET', key, 'tenantId', 'objectId')
  if owner[1] then
    redis.call('ZREM', ARGV[1] .. 'tenant:' .. owner[1], id)
    if owner[2] ~= '' then redis.call('ZREM', ARGV[1] .. 'object:' .. owner[1] .. ':' .. owner[2], id) end
  end
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[1], id)
end
return #ids`;

/**
 * KEYS: tenant, due, finished. ARGV: prefix, tenant. Removes every job of the tenant with its index
 * entries (tenant deletion); a worker holding one then finds it gone.
 */
const DELETE_TENANT = `
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  local key = ARGV[1] .. 'job:' .. id
  local objectId = redis.call('HGET', key, 'objectId')
  if objectId and objectId ~= '' then redis.call('DEL', ARGV[1] .. 'object:' .. ARGV[2] .. ':' .. objectId) end
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('DEL', KEYS[1])
return #ids`;

const iso = (ms: string) => new Date(Number(ms)).toISOString();

function jobOf(fields: Record<string, string>): Job {
  return {
    id: fields['id']!,
    tenantId: fields['tenantId']!,
    kind: fields['kind']!,
    objectId: fields['objectId'] || null,
    payload: JSON.parse(fields['payload']!) as Record<string, unknown>,
    createdAt: fields['createdAt']!,
    status: fields['status'] as JobStatus,
    attempts: Number(fields['attempts']),
    runAt: iso(fields['runAt']!),
    leaseUntil: fields['leaseUntil'] ? iso(fields['leaseUntil']) : null,
    lastError: fields['lastError'] || null,
    updatedAt: iso(fields['updatedAt']!),
  };
}

/** HGETALL as a flat array (what a script returns) to a record. */
function record(flat: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
}

export interface RedisJobQueueOptions {
  /** Key prefix (default `odp:jobs:`): deployments or test suites sharing one Redis keep apart by it. */
  readonly prefix?: string;
  /** How long `openRedisJobQueue` waits for Redis to answer (default 5 s). */
  readonly connectTimeoutMs?: number;
}

export class RedisJobQueue implements JobQueue {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /** One pipeline of one script per job: each job is added atomically, and at most once. */
  async enqueue(jobs: readonly NewJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const job of jobs) {
      const created = Date.parse(job.createdAt);
      pipeline.eval(
        ENQUEUE,
        5,
        this.key('job', job.id),
        this.key('due'),
        this.key('tenant', job.tenantId),
        job.objectId === null ? '' : this.key('object', job.tenantId, job.objectId),
        this.key('seq'),
        job.id,
        job.tenantId,
        job.kind,
        job.objectId ?? '',
        JSON.stringify(job.payload),
        job.createdAt,
        String(job.runAt === undefined ? created : Date.parse(job.runAt)),
        String(created),
      );
    }
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }

  async claim(worker: string, leaseMs: number, now: Date): Promise<Job | null> {
    const flat = (await this.redis.eval(
      CLAIM,
      1,
      this.key('due'),
      this.prefix,
      String(now.getTime()),
      String(leaseMs),
      worker,
    )) as string[] | null;
    return flat === null ? null : jobOf(record(flat));
  }

  complete(id: string, worker: string, now: Date): Promise<boolean> {
    return this.settle(COMPLETE, id, worker, now);
  }

  fail(id: string, worker: string, error: string, retryAt: Date | null, now: Date): Promise<boolean> {
    return this.settle(FAIL, id, worker, now, error, retryAt === null ? '' : String(retryAt.getTime()));
  }

  /** Runs a script that ends the lease holder's try of job `id` (COMPLETE or FAIL); false for another worker. */
  private async settle(
    script: string,
    id: string,
    worker: string,
    now: Date,
    ...rest: string[]
  ): Promise<boolean> {
    const done = await this.redis.eval(
      script,
      3,
      this.key('job', id),
      this.key('due'),
      this.key('finished'),
      id,
      worker,
      String(now.getTime()),
      ...rest,
    );
    return done === 1;
  }

  async get(id: string): Promise<Job | null> {
    const fields = await this.redis.hgetall(this.key('job', id));
    return fields['id'] === undefined ? null : jobOf(fields);
  }

  async prune(before: Date): Promise<number> {
    return (await this.redis.eval(
      PRUNE,
      1,
      this.key('finished'),
      this.prefix,
      String(before.getTime()),
    )) as number;
  }

  async list(filter: JobListFilter): Promise<Job[]> {
    const index =
      filter.objectId === undefined
        ? this.key('tenant', filter.tenantId)
        : this.key('object', filter.tenantId, filter.objectId);
    const ids = await this.redis.zrevrange(index, 0, filter.limit - 1);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.key('job', id));
    const results = (await pipeline.exec()) ?? [];
    return results
      .map(([, fields]) => fields as Record<string, string>)
      .filter((fields) => fields['id'] !== undefined)
      .map(jobOf);
  }

  async deleteTenant(tenantId: string): Promise<number> {
    return (await this.redis.eval(
      DELETE_TENANT,
      3,
      this.key('tenant', tenantId),
      this.key('due'),
      this.key('finished'),
      this.prefix,
      tenantId,
    )) as number;
  }

  async close(): Promise<void> {
    if (this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * Connects to Redis and resolves the queue once it answers; RedisUnreachableError (naming host and
 * port, never the password) when it does not in time. Lost connections are re-established by
 * ioredis; commands issued meanwhile wait.
 */
export async function openRedisJobQueue(
  url: string,
  options: RedisJobQueueOptions = {},
): Promise<RedisJobQueue> {
  const connectTimeout = options.connectTimeoutMs ?? 5000;
  const redis = new Redis(url, { lazyConnect: true, connectTimeout, maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  try {
    await connectOnce(redis, connectTimeout);
  } catch (error) {
    redis.disconnect();
    throw new RedisUnreachableError(`no Redis answers at ${describeTarget(url)} (${reason(error)})`);
  }
  return new RedisJobQueue(redis, options.prefix ?? 'odp:jobs:');
}
