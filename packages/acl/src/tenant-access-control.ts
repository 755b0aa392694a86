/**
 * Record-level access control of one tenant under one model: the decisions (an AccessPolicy), the
 * maintenance of ACL rows and holdings on every write, the full rebuild and the audit reports.
 * Build a new instance when the tenant's model changes.
 */
import { NotFoundError, UNRESTRICTED } from '@odp/core';
import type {
  AccessRowMaintenance,
  AccessRowOptions,
  AclRow,
  AppliedWrite,
  Model,
  ProfileDirectory,
  TenantAccessRows,
  TenantDocuments,
  WriteBatch,
} from '@odp/core';
import { accessControlReport, recordAccessReport } from './audit.js';
import type { AccessControlReport, RecordAccessReport } from './audit.js';
import { AclPolicy } from './decisions.js';
import { AclDerivation } from './derive.js';
import { storeGraph } from './graph.js';
import type { AclGraph } from './graph.js';
import { HeldAcIdCache } from './held-cache.js';
import { aclWriteParts } from './maintain.js';
import type { AclWriteParts } from './maintain.js';
import { rebuildAccessControl } from './rebuild.js';
import type { RebuildStatus, RebuildTracker } from './jobs.js';

/** The store operations access control uses: reads of documents and of the stored access rows. */
export type AclStore = Pick<
  TenantDocuments,
  'getMany' | 'linksTo' | 'write' | 'scan' | 'distinct' | 'inWriteTurn'
> &
  TenantAccessRows;

export class TenantAccessControl implements AccessRowMaintenance {
  readonly derivation: AclDerivation;
  readonly policy: AclPolicy;
  private readonly graph: AclGraph;
  private readonly held: HeldAcIdCache;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    model: Model,
    tenantId: string,
    private readonly store: AclStore,
  ) {
    this.derivation = new AclDerivation(model, tenantId);
    this.graph = storeGraph(store);
    this.held = new HeldAcIdCache(store);
    this.policy = new AclPolicy(this.derivation, store, this.graph, this.held);
  }

  /**
   * Runs `work` after every ACL-affecting write queued before it, so that derivation always reads
   * the state the previous write left (derive-then-write is not interleaved): in the store's write
   * turns where it has them (`inWriteTurn`), else in this object's own queue.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.store.inWriteTurn) return this.store.inWriteTurn(work);
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The ACL rows and holdings that must be written together with `batch` (computed on the current state). */
  changesFor(batch: WriteBatch, options: AccessRowOptions = {}): Promise<AclWriteParts> {
    return aclWriteParts(this.derivation, this.graph, batch, options.rederivePuts ?? false);
  }

  /** See AccessRowMaintenance: `write` is the store write of the caller's unit of work. */
  async writeWithAccessRows(
    batch: WriteBatch,
    write: (complete: WriteBatch) => Promise<AppliedWrite | void>,
    options: AccessRowOptions = {},
  ): Promise<void> {
    // The exclusive section ends when the write is applied; its commit is awaited outside it.
    const applied = await this.exclusive(async () => {
      const derived = batch.aclRows !== undefined || batch.holdings !== undefined;
      const complete = derived ? batch : await this.withAclChanges(batch, options);
      const written = await write(complete);
      if ((complete.holdings ?? []).length > 0) this.held.invalidate();
      return written;
    });
    await applied?.committed;
  }

  /** Writes `batch` with the ACL rows and holdings it changes straight to the underlying store. */
  write(batch: WriteBatch): Promise<void> {
    return this.writeWithAccessRows(batch, (complete) => this.store.write(complete));
  }

  /**
   * `batch` with the ACL rows and holdings it changes, and an `update` event for every other object
   * whose ACL rows the batch changes (who may read it changes although its values do not), so event
   * streams and indexes fed from the event log (an external search index holds the acIds of each
   * object) learn of it.
   */
  private async withAclChanges(batch: WriteBatch, options: AccessRowOptions): Promise<WriteBatch> {
    const parts = await this.changesFor(batch, options);
    const written = new Set([...(batch.put ?? []).map((object) => object.id), ...(batch.delete ?? [])]);
    const rowKey = (row: AclRow) => `${row.acId}\u0000${row.nodeId}\u0000${row.definition}`;
    const changedIds: string[] = [];
    for (const entry of parts.aclRows) {
      if (written.has(entry.objectId)) continue;
      const stored = new Set((await this.store.aclRowsOf(entry.objectId)).map(rowKey));
      const next = new Set(entry.rows.map(rowKey));
      if (stored.size !== next.size || [...next].some((key) => !stored.has(key)))
        changedIds.push(entry.objectId);
    }
    if (changedIds.length === 0) return { ...batch, ...parts };
    const at = batch.events?.[0]?.at ?? new Date().toISOString();
    const reached = await this.store.getMany(changedIds, UNRESTRICTED);
    const events = reached.map((object) => ({
      type: 'update' as const,
      objectId: object.id,
      classes: object.classes,
      at,
      // Who may read the object changed, none of its fields.
      changed: [],
    }));
    return { ...batch, ...parts, events: [...(batch.events ?? []), ...events] };
  }

  /** Starts a full re-derivation on `tracker` (throws ConflictError while a rebuild runs). */
  startRebuild(tracker: RebuildTracker, onError?: (error: unknown) => void): RebuildStatus {
    return tracker.start('accessControl', (onProgress) => this.rebuild(onProgress), onError);
  }

  /**
   * Re-derives every ACL row and holding now (batches exclusive of other ACL writes); resolves the
   * number of objects processed. Cached grants are dropped after every batch, so rebuilt holdings
   * apply from the next request on. Callers that track progress use {@link startRebuild} or their own job.
   */
  async rebuild(onProgress?: (processed: number) => void): Promise<number> {
    try {
      return await rebuildAccessControl(this.derivation, this.store, this.graph, {
        onProgress: (processed) => {
          this.held.invalidate();
          onProgress?.(processed);
        },
        exclusive: (work) => this.exclusive(work),
      });
    } finally {
      this.held.invalidate();
    }
  }

  /** The per-record access report of `objectId` (the caller checks that the account may read it). */
  async recordAccess(objectId: string, profiles: ProfileDirectory): Promise<RecordAccessReport> {
    const [object] = await this.store.getMany([objectId], UNRESTRICTED);
    if (!object) throw new NotFoundError();
    return recordAccessReport(this.derivation, this.policy, this.store, profiles, object);
  }

  accessControlReport(): Promise<AccessControlReport> {
    return accessControlReport(this.derivation, this.store);
  }
}
