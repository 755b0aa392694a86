/**
 * The coordination ports inside one process (the embedded default, `pnpm start`): announcements are
 * calls to this process's listeners, the generation is a counter and leases live in a map. Another
 * process (such as `odp`) is not reached; the embedded registry detects its writes itself.
 */
import { randomUUID } from 'node:crypto';
import type {
  ChangeFanout,
  Coordination,
  Invalidation,
  InvalidationChannel,
  Lease,
  LockService,
  Unsubscribe,
} from './coordination.js';

/**
 * Listeners by topic; a listener that throws does not keep the others from being called. Also the
 * local end of the api processes' coordination (`@odp/platform`, cluster-coordination.ts).
 */
export class Listeners<T> {
  private readonly byTopic = new Map<string, Set<(value: T) => void>>();

  add(topic: string, listener: (value: T) => void): Unsubscribe {
    const set = this.byTopic.get(topic) ?? new Set();
    this.byTopic.set(topic, set);
    const entry = (value: T) => listener(value);
    set.add(entry);
    return async () => {
      set.delete(entry);
      if (set.size === 0 && this.byTopic.get(topic) === set) this.byTopic.delete(topic);
    };
  }

  emit(topic: string, value: T): void {
    for (const listener of [...(this.byTopic.get(topic) ?? [])]) {
      try {
        listener(value);
      } catch {
        // A listener's failure is its own; the announcement still reaches the others.
      }
    }
  }

  clear(): void {
    this.byTopic.clear();
  }
}

/**
 * The coordination of this process. Its leases are `shared` when given (the machine's, which other
 * processes take too; their owner closes them), else a map of this process.
 */
export function createInProcessCoordination(shared?: LockService): Coordination {
  const changeListeners = new Listeners<string>();
  const invalidationListeners = new Listeners<Invalidation>();
  let generation = 0;
  const leases = new Map<string, { token: string; expiresAt: number }>();

  const changes: ChangeFanout = {
    crossesProcesses: false,
    async publish(tenantId, head) {
      changeListeners.emit(tenantId, head);
    },
    async subscribe(tenantId, listener) {
      return changeListeners.add(tenantId, listener);
    },
  };

  const invalidations: InvalidationChannel = {
    async publish(message) {
      generation += 1;
      invalidationListeners.emit('', message);
    },
    async subscribe(listener) {
      return invalidationListeners.add('', listener);
    },
    async generation() {
      return String(generation);
    },
  };

  const live = (name: string, token: string) => {
    const held = leases.get(name);
    return held !== undefined && held.token === token && held.expiresAt > Date.now();
  };
  const locks: LockService = {
    async acquire(name, ttlMs) {
      const held = leases.get(name);
      if (held !== undefined && held.expiresAt > Date.now()) return null;
      const token = randomUUID();
      leases.set(name, { token, expiresAt: Date.now() + ttlMs });
      const lease: Lease = {
        name,
        async renew() {
          if (!live(name, token)) return false;
          leases.set(name, { token, expiresAt: Date.now() + ttlMs });
          return true;
        },
        async release() {
          if (leases.get(name)?.token === token) leases.delete(name);
        },
      };
      return lease;
    },
  };

  return {
    changes,
    invalidations,
    locks: shared ?? locks,
    async close() {
      changeListeners.clear();
      invalidationListeners.clear();
    },
  };
}
