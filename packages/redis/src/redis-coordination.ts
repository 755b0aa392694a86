/**
 * The coordination ports over one Redis (`ODP_REDIS_URL`), shared by every api instance and `odp`:
 *
 * - change fan-out: `PUBLISH odp:changes:<tenant>`; each instance subscribes to the channels of the
 *   tenants it has open (one subscriber connection per process).
 * - invalidations: `SET odp:invalidations:generation <random>` and `PUBLISH odp:invalidations` in
 *   one `MULTI`, so the generation has moved on every instance once `publish` resolves. A random
 *   value rather than a counter: after a Redis restart that lost the key, a counter could come back
 *   to a value an instance cached under; a random value never does.
 * - leases: `SET odp:lock:<name> <token> NX PX <ttl>`; renewal and release are scripts that act only
 *   while the key still holds this holder's token (a lease that expired and was taken is never
 *   extended or deleted by its former holder).
 *
 * Announcements from this process reach its own listeners directly (no round trip through Redis);
 * the copy Redis delivers back is recognised by the process's origin id and skipped.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectOnce, describeTarget, reason, RedisUnreachableError } from './connection.js';
import type {
  ChangeFanout,
  Coordination,
  Invalidation,
  InvalidationChannel,
  Lease,
  LockService,
  Unsubscribe,
} from '@odp/core';

const CHANGES_PREFIX = 'odp:changes:';
const INVALIDATIONS_CHANNEL = 'odp:invalidations';
const GENERATION_KEY = 'odp:invalidations:generation';
const LOCK_PREFIX = 'odp:lock:';

const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface RedisCoordinationOptions {
  /** How long `openRedisCoordination` waits for Redis to answer before giving up (default 5 s). */
  readonly connectTimeoutMs?: number;
}

interface Envelope<T> {
  readonly origin: string;
  readonly body: T;
}

/**
 * Connects to Redis (a command connection and a subscriber connection) and resolves once both
 * answer; rejects with RedisUnreachableError when Redis cannot be reached in time. After that, lost
 * connections are re-established by ioredis (subscriptions included); commands issued meanwhile wait.
 */
export async function openRedisCoordination(
  url: string,
  options: RedisCoordinationOptions = {},
): Promise<Coordination> {
  const connectTimeout = options.connectTimeoutMs ?? 5000;
  const target = describeTarget(url);
  const commands = new Redis(url, { lazyConnect: true, connectTimeout, maxRetriesPerRequest: 3 });
  const subscriber = commands.duplicate();
  // Errors while disconnected are retried by ioredis; without a listener Node would print each one.
  commands.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  try {
    await Promise.all([connectOnce(commands, connectTimeout), connectOnce(subscriber, connectTimeout)]);
  } catch (error) {
    commands.disconnect();
    subscriber.disconnect();
    throw new RedisUnreachableError(`no Redis answers at ${target} (${reason(error)})`);
  }

  const origin = randomUUID();
  const listeners = new Map<string, Set<(body: unknown) => void>>();
  const emit = (channel: string, body: unknown) => {
    for (const listener of [...(listeners.get(channel) ?? [])]) {
      try {
        listener(body);
      } catch {
        // A listener's failure is its own; the announcement still reaches the others.
      }
    }
  };
  subscriber.on('message', (channel: string, raw: string) => {
    let envelope: Envelope<unknown>;
    try {
      envelope = JSON.parse(raw) as Envelope<unknown>;
    } catch {
      return;
    }
    if (envelope.origin !== origin) emit(channel, envelope.body);
  });

  /** Adds a listener; the first one of a channel subscribes this process to it. */
  const listen = async (channel: string, listener: (body: unknown) => void): Promise<Unsubscribe> => {
    let set = listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      listeners.set(channel, set);
    }
    const entry = (body: unknown) => listener(body);
    set.add(entry);
    await subscriber.subscribe(channel);
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      set.delete(entry);
      if (set.size === 0 && listeners.get(channel) === set) {
        listeners.delete(channel);
        if (subscriber.status === 'ready') await subscriber.unsubscribe(channel);
      }
    };
  };
  const envelope = <T>(body: T) => JSON.stringify({ origin, body } satisfies Envelope<T>);

  const changes: ChangeFanout = {
    crossesProcesses: true,
    async publish(tenantId, head) {
      const channel = CHANGES_PREFIX + tenantId;
      emit(channel, head);
      await commands.publish(channel, envelope(head));
    },
    subscribe(tenantId, listener) {
      return listen(CHANGES_PREFIX + tenantId, (head) => listener(head as string));
    },
  };

  const invalidations: InvalidationChannel = {
    async publish(message) {
      await commands
        .multi()
        .set(GENERATION_KEY, randomUUID())
        .publish(INVALIDATIONS_CHANNEL, envelope(message))
        .exec();
      emit(INVALIDATIONS_CHANNEL, message);
    },
    subscribe(listener) {
      return listen(INVALIDATIONS_CHANNEL, (message) => listener(message as Invalidation));
    },
    async generation() {
      return (await commands.get(GENERATION_KEY)) ?? 'initial';
    },
  };

  const locks = redisLocks(commands);

  return {
    changes,
    invalidations,
    locks,
    async close() {
      listeners.clear();
      await Promise.allSettled([subscriber.quit(), commands.quit()]);
    },
  };
}

/** Leases on Redis: `SET NX PX` takes one, scripts renew and release it only for its holder. */
function redisLocks(commands: Redis): LockService {
  return {
    async acquire(name, ttlMs) {
      const key = LOCK_PREFIX + name;
      const token = randomUUID();
      const taken = await commands.set(key, token, 'PX', ttlMs, 'NX');
      if (taken !== 'OK') return null;
      const lease: Lease = {
        name,
        async renew() {
          return (await commands.eval(RENEW_SCRIPT, 1, key, token, String(ttlMs))) === 1;
        },
        async release() {
          await commands.eval(RELEASE_SCRIPT, 1, key, token);
        },
      };
      return lease;
    },
  };
}
