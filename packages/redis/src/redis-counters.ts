/**
 * The WindowCounters port on Redis (`ODP_REDIS_URL`), shared by every api and worker process of a
 * deployment: one hash per counter (`odp:counter:<key>`) holding its value and the end of its
 * window. A take is one Lua script (read, compare with the limit, increment), so concurrent takes
 * from any number of processes never pass the limit. Whether a counter is live is decided against
 * the caller's `now` (an injected clock works as with SQLite); Redis drops the key after the window.
 */
import { Redis } from 'ioredis';
import type { WindowCounters } from '@odp/core';
import { connectOnce, describeTarget, reason, RedisUnreachableError } from './connection.js';

// A counter is a hash {v: value, e: end of its window in epoch ms}. A value counts only while e is
// after the caller's now (ARGV[1]); PEXPIRE (ARGV[2] ms from now) lets Redis drop it afterwards.
const LIVE = `
local function live(key, now)
  local fields = redis.call('HMGET', key, 'v', 'e')
  if fields[2] and tonumber(fields[2]) > now then return tonumber(fields[1]) end
  return 0
end`;
const TAKE_SCRIPT = `${LIVE}
local value = live(KEYS[1], tonumber(ARGV[1]))
if value >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'v', value + 1, 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
const ADD_SCRIPT = `${LIVE}
local value = live(KEYS[1], tonumber(ARGV[1])) + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'v', value, 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return value`;
const READ_SCRIPT = `${LIVE}
local values = {}
for i, key in ipairs(KEYS) do values[i] = live(key, tonumber(ARGV[1])) end
return values`;

export interface RedisWindowCountersOptions {
  /** Prefix of every key (default `odp:counter:`); tests use one of their own. */
  readonly prefix?: string;
  /** How long opening waits for Redis to answer (default 5 s). */
  readonly connectTimeoutMs?: number;
}

/** Connects and resolves once Redis answers; RedisUnreachableError when it does not in time. */
export async function openRedisWindowCounters(
  url: string,
  options: RedisWindowCountersOptions = {},
): Promise<WindowCounters> {
  const timeout = options.connectTimeoutMs ?? 5000;
  const prefix = options.prefix ?? 'odp:counter:';
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeout, maxRetriesPerRequest: 3 });
  client.on('error', () => undefined);
  try {
    await connectOnce(client, timeout);
  } catch (error) {
    client.disconnect();
    throw new RedisUnreachableError(`no Redis answers at ${describeTarget(url)} (${reason(error)})`);
  }
  /** now, milliseconds the counter lives from now (at least 1: Redis refuses 0), the window's end. */
  const times = (expiresAt: Date, now: Date) => [
    String(now.getTime()),
    String(Math.max(1, expiresAt.getTime() - now.getTime())),
    String(expiresAt.getTime()),
  ];
  return {
    async read(keys, now) {
      if (keys.length === 0) return [];
      const values = (await client.eval(
        READ_SCRIPT,
        keys.length,
        ...keys.map((key) => prefix + key),
        String(now.getTime()),
      )) as number[];
      return values.map(Number);
    },
    async take(key, limit, expiresAt, now) {
      const taken = await client.eval(TAKE_SCRIPT, 1, prefix + key, ...times(expiresAt, now), String(limit));
      return taken === 1;
    },
    async add(key, amount, expiresAt, now) {
      return Number(await client.eval(ADD_SCRIPT, 1, prefix + key, ...times(expiresAt, now), String(amount)));
    },
    async close() {
      await client.quit().catch(() => undefined);
    },
  };
}
