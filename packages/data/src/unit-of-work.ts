/**
 * The pending changes of one request: objects read from the store (unfiltered: write rules see the
 * whole graph), the versions to put, the ids to delete and the events to append. Reads go through
 * the pending state, so later rules (delete after repointing, recalculation of linkers) see earlier
 * effects. `batch()` turns it into one atomic {@link WriteBatch}.
 *
 * Optimistic concurrency: every object the unit puts or deletes after reading it is expected, in
 * the batch, to still carry the `modifiedAt` it was read with, and every put of such an object
 * moves `modifiedAt` strictly forward (by a millisecond when the clock has not), so the value
 * identifies a version. When another writer got there first, the store refuses the whole batch
 * (WriteConflictError) and {@link withWriteRetries} runs the unit of work again on the new state:
 * two concurrent writes to one object never lose either change, in one process or across several.
 */
import { ConflictError, LoopSlices, UNRESTRICTED, WriteConflictError } from '@odp/core';
import type {
  IdempotencyRecord,
  NewChangeEvent,
  NewJob,
  StoredObject,
  TenantDocuments,
  WriteBatch,
  WriteExpectation,
} from '@odp/core';

/**
 * How long a unit of work keeps being retried before a persisting conflict is answered with 409.
 * A time budget rather than an attempt count: every round of N writers contending for one object
 * has a winner, so the last one needs up to N attempts, and on a document server an attempt takes
 * a few hundred milliseconds instead of one.
 */
export const WRITE_RETRY_BUDGET_MS = 30_000;

/** The longest wait between two attempts of a unit of work, in attempt durations and at least. */
const MAX_RETRY_WAIT_ATTEMPTS = 8;
const MAX_RETRY_WAIT_MS = 2_000;

/**
 * Per object id, the tail of this process's queue of units of work that lost a write on it. A unit
 * that lost once runs its next attempts one at a time with the others of this process that lost on
 * the same object: N writers of one instance then make one attempt per round instead of N, and only
 * the instances race each other.
 */
const contendedObjects = new Map<string, Promise<void>>();

async function oneAtATimeOn<T>(objectId: string, run: () => Promise<T>): Promise<T> {
  const previous = contendedObjects.get(objectId) ?? Promise.resolve();
  let release = (): void => undefined;
  const turn = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => turn);
  contendedObjects.set(objectId, tail);
  try {
    await previous;
    return await run();
  } finally {
    release();
    if (contendedObjects.get(objectId) === tail) contendedObjects.delete(objectId);
  }
}

/**
 * Runs `unit` (one whole read-decide-write unit of work) until its write is not refused by a
 * concurrent change. The first retry follows at once, in this process's queue of the object it lost
 * on (the winner has committed, so the new state is there to read). When an attempt in that queue
 * loses again (to another instance), the next waits a random time (full jitter) in a window that
 * doubles with every attempt and is scaled by how long the refused attempt took: instances that
 * lost together then retry spread over several attempt durations instead of meeting again on the
 * next version, on a store whose attempt takes a millisecond (SQLite) as on one whose attempt takes
 * a few hundred (a document server that scans).
 */
export async function withWriteRetries<T>(
  unit: () => Promise<T>,
  budgetMs = WRITE_RETRY_BUDGET_MS,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  let contended: string | null = null;
  let started = 0;
  const timed = (): Promise<T> => {
    started = Date.now();
    return unit();
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await (contended === null ? timed() : oneAtATimeOn(contended, timed));
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      const duration = Math.max(5, Date.now() - started);
      const cap = Math.max(MAX_RETRY_WAIT_MS, MAX_RETRY_WAIT_ATTEMPTS * duration);
      const wait =
        contended === null ? 0 : Math.random() * Math.min(cap, duration * 2 ** Math.min(attempt - 2, 16));
      contended = error.objectId;
      if (Date.now() + wait >= deadline) {
        throw new ConflictError('The object kept changing while this write was applied; try again.');
      }
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The ISO timestamp one millisecond after `iso`. */
function after(iso: string): string {
  return new Date(Date.parse(iso) + 1).toISOString();
}

export class UnitOfWork {
  private readonly loaded = new Map<string, StoredObject | null>();
  /** Stored links to an id, as first read (pending changes are merged in on every call). */
  private readonly storedLinks = new Map<string, readonly { sourceId: string; relationKey: string }[]>();
  private readonly puts = new Map<string, StoredObject>();
  private readonly deletes = new Set<string>();
  private readonly events: NewChangeEvent[] = [];
  private readonly jobs: NewJob[] = [];
  readonly redirects: { from: string; to: string }[] = [];
  private idempotency: IdempotencyRecord | undefined;
  /**
   * The unit's slices of the event loop, its clock started with it: a unit whose reading and
   * deciding took a slice (a large value validated and measured) yields before its store write,
   * so that the write's transaction is a step of its own.
   */
  readonly slices = new LoopSlices();

  /**
   * `changedNames` names the fields and forward relations in which a put object differs from the
   * version first read (`before` null for a new object: the fields it sets), for the `changed`
   * list of the create and update events.
   */
  constructor(
    readonly store: TenantDocuments,
    private readonly now: string,
    private readonly changedNames: (before: StoredObject | null, after: StoredObject) => string[],
  ) {}

  get timestamp(): string {
    return this.now;
  }

  async load(id: string): Promise<StoredObject | null> {
    if (this.deletes.has(id)) return null;
    const pending = this.puts.get(id);
    if (pending) return pending;
    if (!this.loaded.has(id)) this.loaded.set(id, await this.store.get(id, UNRESTRICTED));
    return this.loaded.get(id) ?? null;
  }

  /**
   * Records `object` as read from the store by the caller, so that loading it reads nothing. Any
   * access filter will do: a read that lets an object through returns it whole.
   */
  remember(object: StoredObject): void {
    if (!this.loaded.has(object.id)) this.loaded.set(object.id, object);
  }

  async loadMany(ids: readonly string[]): Promise<StoredObject[]> {
    const missing = ids.filter((id) => !this.loaded.has(id) && !this.puts.has(id) && !this.deletes.has(id));
    if (missing.length > 0) {
      const found = await this.store.getMany(missing, UNRESTRICTED);
      for (const id of missing) this.loaded.set(id, found.find((object) => object.id === id) ?? null);
    }
    const objects = await Promise.all(ids.map((id) => this.load(id)));
    return objects.filter((object): object is StoredObject => object !== null);
  }

  /**
   * Links to `id` without loading the linking objects: the stored ones plus those of pending
   * objects. May include links the pending state has since removed (callers re-read the source).
   */
  async linkRefsTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    const refs = new Map<string, { sourceId: string; relationKey: string }>();
    let stored = this.storedLinks.get(id);
    if (stored === undefined) {
      stored = await this.store.linksTo(id);
      this.storedLinks.set(id, stored);
    }
    for (const link of stored) refs.set(`${link.sourceId} ${link.relationKey}`, link);
    for (const source of this.puts.values()) {
      for (const [relationKey, ids] of Object.entries(source.links)) {
        if (ids.includes(id)) refs.set(`${source.id} ${relationKey}`, { sourceId: source.id, relationKey });
      }
    }
    return [...refs.values()].filter((ref) => !this.deletes.has(ref.sourceId));
  }

  /** Objects linking to `id` as the pending state has them, with the relation key. */
  async linkersOf(id: string): Promise<{ source: StoredObject; relationKey: string }[]> {
    const refs = await this.linkRefsTo(id);
    const result: { source: StoredObject; relationKey: string }[] = [];
    for (const source of await this.loadMany([...new Set(refs.map((ref) => ref.sourceId))])) {
      for (const [relationKey, ids] of Object.entries(source.links)) {
        if (ids.includes(id)) result.push({ source, relationKey });
      }
    }
    return result;
  }

  isDeleted(id: string): boolean {
    return this.deletes.has(id);
  }

  put(object: StoredObject): void {
    const read = this.loaded.get(object.id);
    const forward = read && object.modifiedAt <= read.modifiedAt;
    this.puts.set(object.id, forward ? { ...object, modifiedAt: after(read.modifiedAt) } : object);
  }

  delete(id: string): void {
    this.puts.delete(id);
    this.deletes.add(id);
  }

  emit(event: Omit<NewChangeEvent, 'at'>): void {
    this.events.push({ ...event, at: this.now });
  }

  /**
   * A create or update event with the names its object's final version changed, relative to the
   * version first read: what the whole write did to the object, whichever of its steps emitted the
   * event. Nothing changed for an object the unit did not put.
   */
  private withChanged(event: NewChangeEvent): NewChangeEvent {
    if (event.type !== 'create' && event.type !== 'update') return event;
    const after = this.puts.get(event.objectId);
    return { ...event, changed: after ? this.changedNames(this.original(event.objectId), after) : [] };
  }

  /** The version of `id` as first read from the store (null when new or never read). */
  original(id: string): StoredObject | null {
    return this.loaded.get(id) ?? null;
  }

  /** Jobs written to the tenant outbox with the batch (script gateway calls). */
  enqueue(jobs: readonly NewJob[]): void {
    this.jobs.push(...jobs);
  }

  /**
   * The record of the keyed request this unit writes (`Idempotency-Key`), stored with its batch:
   * the batch is refused (IdempotencyKeyTakenError) when another one stored the key first.
   */
  recordIdempotency(record: IdempotencyRecord): void {
    this.idempotency = record;
  }

  /** Ids put by this unit of work (created or changed). */
  putIds(): string[] {
    return [...this.puts.keys()];
  }

  /** The precondition of the write: each object put or deleted after being read is as it was read. */
  private expectations(): WriteExpectation[] {
    const expect: WriteExpectation[] = [];
    for (const id of [...this.puts.keys(), ...this.deletes]) {
      if (this.loaded.has(id)) expect.push({ id, modifiedAt: this.loaded.get(id)?.modifiedAt ?? null });
    }
    return expect;
  }

  batch(): WriteBatch {
    return {
      expect: this.expectations(),
      put: [...this.puts.values()],
      delete: [...this.deletes],
      redirects: this.redirects,
      events: this.events.map((event) => this.withChanged(event)),
      jobs: this.jobs,
      ...(this.idempotency ? { idempotency: this.idempotency } : {}),
    };
  }
}
