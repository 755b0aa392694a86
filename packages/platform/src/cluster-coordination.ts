/**
 * The coordination ports of one api process among the several that serve one machine
 * (`ODP_API_PROCESSES`, docs/architecture.md "Api processes"), over the IPC channel to the primary
 * process that started them. The primary runs the {@link ClusterHub}: it relays change
 * announcements and invalidations to every process (the sender included) and keeps the one
 * invalidation generation and the leases, so a rebuild runs on one process at a time. The same
 * guarantees as the Redis adapter, for the processes of one machine without a Redis.
 */
import type {
  ChangeFanout,
  Coordination,
  Invalidation,
  InvalidationChannel,
  Lease,
  LockReleases,
  LockService,
} from '@odp/core';
import { Listeners } from '@odp/core';
import type { TenantActivity } from './activity-elsewhere.js';

/** Every message of the protocol carries this tag, so other IPC traffic passes by untouched. */
export const CLUSTER_MESSAGE_TAG = 'odp:coordination';

/** A question to the hub; its answer comes back as a `reply` with the same `id`. */
export type ClusterCall =
  | { readonly op: 'invalidate'; readonly message: Invalidation }
  | { readonly op: 'generation' }
  | { readonly op: 'acquire'; readonly name: string; readonly ttlMs: number }
  | { readonly op: 'renew'; readonly lease: string }
  | { readonly op: 'release'; readonly lease: string };

/** "Tenant T's event log advanced to `head`", from a process to the hub and on to every process. */
interface ChangeMessage {
  readonly tag: typeof CLUSTER_MESSAGE_TAG;
  readonly kind: 'change';
  readonly tenantId: string;
  readonly head: string;
}

/**
 * "This process committed to `file`" (its write lock is free), from a process to the hub and on to
 * every other process, where a write waiting for that lock tries again at once.
 */
interface LockReleasedMessage {
  readonly tag: typeof CLUSTER_MESSAGE_TAG;
  readonly kind: 'lock-released';
  readonly file: string;
}

/**
 * "These tenants are active in the sending process" (cluster-activity.ts), from a process to the
 * hub and on to every other process.
 */
export interface ActivityMessage {
  readonly tag: typeof CLUSTER_MESSAGE_TAG;
  readonly kind: 'activity';
  /** The sending process (its pid). */
  readonly from: string;
  readonly activity: TenantActivity;
}

/** What a process sends to the hub. */
export type ToHub =
  | ChangeMessage
  | ActivityMessage
  | LockReleasedMessage
  | {
      readonly tag: typeof CLUSTER_MESSAGE_TAG;
      readonly kind: 'call';
      readonly id: number;
      readonly call: ClusterCall;
    };

/** What the hub sends to a process. */
export type FromHub =
  | ChangeMessage
  | ActivityMessage
  | LockReleasedMessage
  | {
      readonly tag: typeof CLUSTER_MESSAGE_TAG;
      readonly kind: 'invalidation';
      readonly message: Invalidation;
    }
  | {
      readonly tag: typeof CLUSTER_MESSAGE_TAG;
      readonly kind: 'reply';
      readonly id: number;
      readonly value?: unknown;
      readonly error?: string;
    };

/** One end of an IPC channel (a cluster worker's `process.send`, or a fake in tests). */
export interface ClusterChannel {
  send(message: ToHub): void;
  /** Calls `listener` with every message received until the returned function is called. */
  onMessage(listener: (message: unknown) => void): () => void;
}

/** A call the hub has not answered within this time fails (the primary is gone or stalled). */
const CALL_TIMEOUT_MS = 10_000;

/** Whether `message` belongs to the protocol (its direction is known from where it arrived). */
export function isClusterMessage<T extends ToHub | FromHub>(message: unknown): message is T {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { tag?: unknown }).tag === CLUSTER_MESSAGE_TAG
  );
}

/** The IPC channel of this process to the primary that forked it (a `node:cluster` worker). */
export function primaryChannel(): ClusterChannel {
  return {
    send(message) {
      // A primary that is gone ends this process too (cluster workers exit on disconnect).
      if (process.connected) process.send?.(message);
    },
    onMessage(listener) {
      process.on('message', listener);
      return () => process.off('message', listener);
    },
  };
}

/** The coordination of one api process through the hub at the other end of `channel`. */
export function createClusterCoordination(channel: ClusterChannel): Coordination {
  const changeListeners = new Listeners<string>();
  const invalidationListeners = new Listeners<Invalidation>();
  const releaseListeners = new Listeners<void>();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;

  const call = (request: ClusterCall): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the primary process did not answer ${request.op}`));
      }, CALL_TIMEOUT_MS);
      timer.unref();
      pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      channel.send({ tag: CLUSTER_MESSAGE_TAG, kind: 'call', id, call: request });
    });

  const stopReceiving = channel.onMessage((message) => {
    if (!isClusterMessage<FromHub>(message)) return;
    if (message.kind === 'change') changeListeners.emit(message.tenantId, message.head);
    else if (message.kind === 'lock-released') releaseListeners.emit(message.file, undefined);
    else if (message.kind === 'invalidation') invalidationListeners.emit('', message.message);
    else if (message.kind === 'reply') {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.value);
    }
  });

  const changes: ChangeFanout = {
    crossesProcesses: true,
    async publish(tenantId, head) {
      channel.send({ tag: CLUSTER_MESSAGE_TAG, kind: 'change', tenantId, head });
    },
    async subscribe(tenantId, listener) {
      return changeListeners.add(tenantId, listener);
    },
  };

  const invalidations: InvalidationChannel = {
    async publish(message) {
      await call({ op: 'invalidate', message });
    },
    async subscribe(listener) {
      return invalidationListeners.add('', listener);
    },
    async generation() {
      return String(await call({ op: 'generation' }));
    },
  };

  const locks: LockService = {
    async acquire(name, ttlMs) {
      const handle = await call({ op: 'acquire', name, ttlMs });
      if (typeof handle !== 'string') return null;
      const lease: Lease = {
        name,
        renew: async () => (await call({ op: 'renew', lease: handle })) === true,
        release: async () => void (await call({ op: 'release', lease: handle })),
      };
      return lease;
    },
  };

  const lockReleases: LockReleases = {
    announce(file) {
      channel.send({ tag: CLUSTER_MESSAGE_TAG, kind: 'lock-released', file });
    },
    listen(file, listener) {
      const unsubscribe = releaseListeners.add(file, listener);
      return () => void unsubscribe();
    },
  };

  return {
    changes,
    invalidations,
    locks,
    lockReleases,
    async close() {
      stopReceiving();
      changeListeners.clear();
      invalidationListeners.clear();
      releaseListeners.clear();
    },
  };
}
