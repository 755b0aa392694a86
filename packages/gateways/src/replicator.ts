/**
 * The DatastoreReplicator gateway (interface spec, "Gateway DatastoreReplicator", rules 1-8):
 * changes of objects are buffered and written to the warehouse in micro-batches.
 *
 * - `accept` runs the gateway job of a write: when the tenant's connection parameters are all
 *   set, the change joins the {@link ReplicationBuffer} and a flush job of its destination
 *   (`<projectId>/<dataset>/<table>`) is scheduled for the end of the current flush interval
 *   (`_flushInterval`, default 15 minutes; intervals are aligned on the clock, so all changes of
 *   one interval share one flush). Without them nothing happens (rule 7).
 * - `flush` runs that job: the waiting changes, reduced to the latest per object (rule 5), are
 *   written in one batch (rows replaced, deleted objects removed, rule 1); a failure keeps them
 *   buffered and schedules the next flush one interval later (rule 6).
 * - A target the warehouse can never have (`Warehouse.targetProblem`: a bad project, dataset or
 *   table name) fails for good with the reason: `accept` buffers nothing, and a flush of changes
 *   buffered for one drops them instead of rescheduling itself forever.
 *
 * Both are safe to run again (at-least-once jobs): the buffer keeps an event once by job id, and
 * a flush writes the latest state, so repeating one changes nothing. One flush of a destination
 * writes at a time, on whichever worker: a flush that finds another still writing (a short interval,
 * a slow warehouse) leaves the waiting changes to it and schedules the next cycle, so no change is
 * written twice.
 */
import type {
  Job,
  JobQueue,
  LockService,
  ReplicationBuffer,
  ReplicationEvent,
  Warehouse,
  WarehouseColumnType,
  WarehouseRow,
  WarehouseTarget,
} from '@odp/core';
import { keepHeld } from '@odp/core';
import { GatewayError } from './gateway.js';

/** The job kind of a destination's flush. */
export const REPLICATION_FLUSH_JOB = 'replication-flush';

/** The default flush interval (interface spec, Limits). */
export const DEFAULT_FLUSH_INTERVAL_MS = 15 * 60_000;

/** Events one flush writes per batch; a longer backlog is written in several batches. */
const FLUSH_BATCH = 5_000;

/** How long a flush's hold on its destination outlives a worker that died holding it; renewed while it runs. */
const FLUSH_LEASE_MS = 60_000;

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a duration notation: a whole number and a unit, `s`, `m`, `h` or `d` (`30s`, `15m`, `3h`,
 * `1d`); the default without a value. GatewayError (not retryable) for anything else.
 */
export function flushIntervalMs(text: string | null | undefined): number {
  if (text === null || text === undefined || text.trim() === '') return DEFAULT_FLUSH_INTERVAL_MS;
  const match = /^(\d{1,6})\s*([smhd])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : 0;
  if (ms <= 0)
    throw new GatewayError(`_flushInterval '${text}' is not a duration such as 30s, 15m, 3h or 1d.`, false);
  return ms;
}

/** What a replication event's job payload carries besides its parameters (see `@odp/data` scripts). */
interface ReplicationInfo {
  readonly columns: Readonly<Record<string, WarehouseColumnType>>;
  readonly credentialsFromSecret: boolean;
}

function replicationInfo(payload: Readonly<Record<string, unknown>>): ReplicationInfo {
  const info = payload['replication'] as Partial<ReplicationInfo> | undefined;
  return { columns: info?.columns ?? {}, credentialsFromSecret: info?.credentialsFromSecret === true };
}

interface FlushPayload {
  readonly destination: string;
  readonly intervalMs: number;
}

export interface ReplicatorDeps {
  readonly buffer: ReplicationBuffer;
  readonly warehouse: Warehouse;
  /** Where flush jobs are scheduled. */
  readonly queue: Pick<JobQueue, 'enqueue' | 'get'>;
  /** Shared by every worker: one flush of a destination writes at a time. */
  readonly locks: LockService;
  readonly now: () => Date;
  /** The parameters of a job payload, decrypted when sealed; null when they cannot be. */
  readonly parametersOf: (payload: Readonly<Record<string, unknown>>) => Record<string, string | null> | null;
}

export class DatastoreReplicator {
  constructor(private readonly deps: ReplicatorDeps) {}

  /**
   * Buffers the change of a DatastoreReplicator gateway job and schedules its flush. Resolves
   * false when the tenant has no connection parameters (nothing buffered, no error). GatewayError
   * (not retryable) for a `_type` other than WAREHOUSE, `_credentials` not read from a secret
   * value, a bad `_flushInterval`, or a target the warehouse can never have.
   */
  async accept(job: Job, parameters: Readonly<Record<string, string | null>>): Promise<boolean> {
    const set = (name: string) => (parameters[name] ?? '').trim() !== '';
    if (!['_type', '_projectId', '_dataset', '_table', '_credentials'].every(set)) return false;
    if (parameters['_type']!.trim() !== 'WAREHOUSE')
      throw new GatewayError(`_type must be WAREHOUSE, not '${parameters['_type']}'.`, false);
    if (!replicationInfo(job.payload).credentialsFromSecret)
      throw new GatewayError(
        "_credentials must come from a system.secretValue (systemSetting('<name>') of a secret value), never from a plain setting or a literal.",
        false,
      );
    if (job.objectId === null) throw new GatewayError('A replicated change names no object.', false);
    const intervalMs = flushIntervalMs(parameters['_flushInterval']);
    const destination = [parameters['_projectId'], parameters['_dataset'], parameters['_table']]
      .map((part) => part!.trim())
      .join('/');
    const refused = this.deps.warehouse.targetProblem(targetOf(job.tenantId, parameters));
    if (refused !== null) throw new GatewayError(`${refused}; the change is not replicated.`, false);
    await this.deps.buffer.append({
      id: job.id,
      tenantId: job.tenantId,
      destination,
      objectId: job.objectId,
      at: job.createdAt,
      payload: job.payload,
    });
    await this.scheduleFlush(job.tenantId, destination, intervalMs);
    return true;
  }

  /**
   * Enqueues the flush of the destination at the end of the current interval, unless it is
   * queued already. A flush of that interval already claimed (or run) may have read the buffer
   * before the event was added: then the next interval's flush is enqueued, so no event waits for
   * a flush that never comes. Resolves when the flush will run.
   */
  private async scheduleFlush(tenantId: string, destination: string, intervalMs: number): Promise<Date> {
    const now = this.deps.now();
    for (let window = Math.floor(now.getTime() / intervalMs); ; window += 1) {
      const id = `${REPLICATION_FLUSH_JOB}:${tenantId}:${destination}:${intervalMs}:${window}`;
      const runAt = new Date((window + 1) * intervalMs);
      const payload: FlushPayload = { destination, intervalMs };
      await this.deps.queue.enqueue([
        {
          id,
          tenantId,
          kind: REPLICATION_FLUSH_JOB,
          objectId: null,
          payload: { ...payload },
          createdAt: now.toISOString(),
          runAt: runAt.toISOString(),
        },
      ]);
      if ((await this.deps.queue.get(id))?.status === 'pending') return runAt;
    }
  }

  /**
   * Runs a flush job: writes the destination's waiting changes, latest per object, and marks
   * them flushed. Resolves the numbers of rows written and removed. On a failed write the events
   * stay buffered, the next flush is scheduled one interval later, and a GatewayError (not
   * retryable: the flush cycle is the retry) says when. A target the warehouse refuses drops the
   * changes and fails without a next flush.
   */
  async flush(job: Job): Promise<{ rows: number; deletes: number }> {
    const { destination, intervalMs } = job.payload as unknown as FlushPayload;
    const lease = await this.deps.locks.acquire(
      `${REPLICATION_FLUSH_JOB}:${job.tenantId}:${destination}`,
      FLUSH_LEASE_MS,
    );
    if (lease === null) {
      // Another flush of this destination is writing: what it has read is its own, the rest waits
      // for the next cycle, scheduled here in case no new change schedules it.
      await this.scheduleFlush(job.tenantId, destination, intervalMs);
      return { rows: 0, deletes: 0 };
    }
    // A lost lease only lets a second flush write the same latest state again: nothing to undo.
    const release = keepHeld(lease, FLUSH_LEASE_MS);
    try {
      return await this.flushHeld(job.tenantId, destination, intervalMs);
    } finally {
      await release();
    }
  }

  /** The flush itself, while this worker holds the destination. */
  private async flushHeld(
    tenantId: string,
    destination: string,
    intervalMs: number,
  ): Promise<{ rows: number; deletes: number }> {
    let written = { rows: 0, deletes: 0 };
    for (;;) {
      const events = await this.deps.buffer.pending(tenantId, destination, FLUSH_BATCH);
      if (events.length === 0) return written;
      try {
        const batch = await this.writeBatch(events);
        written = { rows: written.rows + batch.rows, deletes: written.deletes + batch.deletes };
      } catch (error) {
        if (error instanceof RefusedTarget) {
          // Changes buffered before their target was checked: no later flush could write them.
          await this.deps.buffer.markFlushed(
            events.map((event) => event.id),
            this.deps.now(),
          );
          throw new GatewayError(`${error.message}; ${events.length} buffered changes are dropped.`, false);
        }
        // This flush runs after the end of its interval: the current one's flush is the next cycle.
        const next = await this.scheduleFlush(tenantId, destination, intervalMs);
        const message = error instanceof Error ? error.message : String(error);
        throw new GatewayError(
          `The warehouse flush failed; its changes stay buffered for the next flush at ${next.toISOString()}: ${message}`,
          false,
        );
      }
      await this.deps.buffer.markFlushed(
        events.map((event) => event.id),
        this.deps.now(),
      );
    }
  }

  /** Writes one batch of events reduced to the latest per object (events are oldest first). */
  private async writeBatch(events: readonly ReplicationEvent[]): Promise<{ rows: number; deletes: number }> {
    const latest = new Map<string, { event: ReplicationEvent; parameters: Record<string, string | null> }>();
    for (const event of events) {
      const parameters = this.deps.parametersOf(event.payload);
      // Parameters sealed under a secret key since rotated cannot be read: that change is dropped.
      if (parameters === null) continue;
      latest.delete(event.objectId);
      latest.set(event.objectId, { event, parameters });
    }
    const newest = [...latest.values()].at(-1);
    if (newest === undefined) return { rows: 0, deletes: 0 };
    const columns: Record<string, WarehouseColumnType> = {};
    const rows: WarehouseRow[] = [];
    const deletes: string[] = [];
    for (const { event, parameters } of latest.values()) {
      if (event.payload['trigger'] === 'DELETE') {
        deletes.push(event.objectId);
        continue;
      }
      const types = replicationInfo(event.payload).columns;
      Object.assign(columns, types);
      const values: Record<string, string | null> = {};
      for (const name of Object.keys(types)) values[name] = parameters[name] ?? null;
      rows.push({ id: event.objectId, values });
    }
    const target = targetOf(newest.event.tenantId, newest.parameters);
    const refused = this.deps.warehouse.targetProblem(target);
    if (refused !== null) throw new RefusedTarget(refused);
    await this.deps.warehouse.write(target, { columns, rows, deletes });
    return { rows: rows.length, deletes: deletes.length };
  }
}

/** A flush whose target the warehouse can never have: failed for good, never offered again. */
class RefusedTarget extends Error {}

/** The warehouse table a change's connection parameters name, in the tenant's own warehouse. */
function targetOf(tenantId: string, parameters: Readonly<Record<string, string | null>>): WarehouseTarget {
  return {
    tenantId,
    projectId: (parameters['_projectId'] ?? '').trim(),
    dataset: (parameters['_dataset'] ?? '').trim(),
    table: (parameters['_table'] ?? '').trim(),
    credentials: parameters['_credentials'] ?? '',
  };
}
