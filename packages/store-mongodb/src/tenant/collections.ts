/**
 * The collections of a tenant database and their documents, the indexes every tenant has, the
 * counters (`meta`), and the driver errors the store reads (duplicate key, missing namespace).
 */
import type { ChangeEvent } from '@odp/core';
import type { ClientSession, Collection, Db, Document } from 'mongodb';
import { isNamespaceNotFound, upsertRacing } from '../server-errors.js';
import type { ObjectDoc } from './documents.js';
import type { IdempotencyDoc } from './idempotency.js';
import type { SearchPageDoc } from './search.js';

export interface HoldingDoc {
  anchor: string;
  def: string;
  holder: string;
  ac: string;
  steps: string[];
  /** Position within the (anchor, definition) set, so holdings read back in written order. */
  pos: number;
}

/** An event of the log; `_id` is its position (see `appendEvents`). */
export interface EventDoc {
  _id: number;
  type: ChangeEvent['type'];
  objectId: string;
  classes: string[];
  loserId?: string;
  at: string;
  /** The changed field names (ChangeEvent.changed); absent on events written before it was kept. */
  changed?: string[];
}

/**
 * A claim on one value of a `unique` field: `_id` is the field's path and the folded value, which the
 * server keeps unique, so of two concurrent writers of one value exactly one inserts the claim.
 */
export interface ClaimDoc {
  _id: string;
  owner: string;
  at: Date;
}

/**
 * A claim on one version of an object (`_id`: the object id and the `modifiedAt` a writer read, see
 * `WriteBatch.expect`), held while that writer's batch is applied: the server keeps `_id` unique, so
 * of two writers that read the same version exactly one holds it.
 */
export interface VersionClaimDoc {
  _id: string;
  at: Date;
}

/** A job of the tenant's outbox (`WriteBatch.jobs`), as JSON text (payload keys may hold `.` or `$`). */
export interface OutboxDoc {
  _id: string;
  seq: number;
  job: string;
}

export interface RedirectDoc {
  _id: string;
  to: string;
}

export interface MetaDoc {
  _id: string;
  /** Counters (`objects`, `jobs`): the last value handed out. */
  n?: number;
  /** `model`: the index signature the derived fields were built with. */
  signature?: string;
  /** `cursorKey`: the random key that signs search cursors (base64). */
  key?: string;
}

/** Options of a driver call: the batch's session when the write runs in a transaction. */
export type Session = { session?: ClientSession };

/**
 * A claim whose owner does not hold its value counts as a write in flight for this long, then as
 * left behind (by a batch that failed or a process that died) and may be taken over.
 */
export const CLAIM_GRACE_MS = 30_000;

export class TenantCollections {
  readonly objects: Collection<ObjectDoc>;
  readonly holdings: Collection<HoldingDoc>;
  readonly eventDocs: Collection<EventDoc>;
  readonly redirects: Collection<RedirectDoc>;
  readonly claims: Collection<ClaimDoc>;
  readonly versionClaims: Collection<VersionClaimDoc>;
  readonly outboxJobs: Collection<OutboxDoc>;
  readonly meta: Collection<MetaDoc>;
  readonly searchPages: Collection<SearchPageDoc>;
  readonly idempotency: Collection<IdempotencyDoc>;

  constructor(readonly db: Db) {
    this.objects = db.collection<ObjectDoc>('objects');
    this.holdings = db.collection<HoldingDoc>('holdings');
    this.eventDocs = db.collection<EventDoc>('events');
    this.redirects = db.collection<RedirectDoc>('redirects');
    this.claims = db.collection<ClaimDoc>('uniqueClaims');
    this.versionClaims = db.collection<VersionClaimDoc>('versionClaims');
    this.outboxJobs = db.collection<OutboxDoc>('outbox');
    this.meta = db.collection<MetaDoc>('meta');
    this.searchPages = db.collection<SearchPageDoc>('searchPages');
    this.idempotency = db.collection<IdempotencyDoc>('idempotency');
  }

  /** The indexes every tenant database has, whatever its model. Idempotent. */
  async createFixedIndexes(): Promise<void> {
    await ensureIndexes(this.objects, [
      { key: { classes: 1, seq: 1 }, name: 'classes_seq' },
      { key: { seq: 1 }, name: 'seq' },
      { key: { lk: 1 }, name: 'lk' },
      { key: { lt: 1 }, name: 'lt' },
      { key: { nk: 1 }, name: 'nk' },
      { key: { ac: 1 }, name: 'ac' },
      { key: { sw: 1 }, name: 'sw' },
    ]);
    await ensureIndexes(this.holdings, [
      { key: { holder: 1 }, name: 'holder' },
      { key: { ac: 1 }, name: 'ac' },
      { key: { anchor: 1, def: 1 }, name: 'anchor_def' },
    ]);
    await ensureIndexes(this.redirects, [{ key: { to: 1 }, name: 'to' }]);
    await ensureIndexes(this.claims, [{ key: { owner: 1 }, name: 'owner' }]);
    await ensureIndexes(this.outboxJobs, [{ key: { seq: 1 }, name: 'seq' }]);
    await ensureIndexes(this.idempotency, [{ key: { expiresAt: 1 }, name: 'expiresAt' }]);
  }

  /** Reserves `count` numbers of a counter; resolves the last one (the first is `last - count + 1`). */
  async nextNumbers(counter: 'objects' | 'jobs', count: number, session: Session): Promise<number> {
    const doc = await upsertRacing(
      () =>
        this.meta.findOneAndUpdate(
          { _id: counter },
          { $inc: { n: count } },
          { ...session, upsert: true, returnDocument: 'after' },
        ),
      session.session !== undefined,
    );
    return doc?.n ?? count;
  }
}

/**
 * Creates the indexes of `specs` a collection lacks (by name), one createIndexes command each.
 * FerretDB v1 panics and drops the connection on one command naming several indexes of which more
 * than one exists already (its filter removes them from the list by their original positions), which
 * happens whenever two processes open the same tenant at once: both list, both ask for the same
 * missing indexes. One index per command is safe there and costs only a tenant's first open.
 */
export async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  specs: readonly { key: Record<string, 1>; name: string }[],
): Promise<void> {
  const listed = await collection
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      // MongoDB lists no indexes of a collection that does not exist yet: it has none.
      if (isNamespaceNotFound(error)) return [];
      throw error;
    });
  const existing = new Set(listed.map((index) => String(index['name'])));
  const missing = specs.filter((spec) => !existing.has(spec.name));
  for (const spec of missing) await collection.createIndexes([{ ...spec }]);
}
