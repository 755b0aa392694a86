/**
 * The pending changes of one request: objects read from the store (unfiltered: write rules see the
 * whole graph), the versions to put, the ids to delete and the events to append. Reads go through
 * the pending state, so later rules (delete after repointing, recalculation of linkers) see earlier
 * effects. `batch()` turns it into one atomic {@link WriteBatch}.
 */
import { UNRESTRICTED } from '@odp/core';
import type { NewChangeEvent, NewJob, StoredObject, TenantStore, WriteBatch } from '@odp/core';

export class UnitOfWork {
  private readonly loaded = new Map<string, StoredObject | null>();
  /** Stored links to an id, as first read (pending changes are merged in on every call). */
  private readonly storedLinks = new Map<string, readonly { sourceId: string; relationKey: string }[]>();
  private readonly puts = new Map<string, StoredObject>();
  private readonly deletes = new Set<string>();
  private readonly events: NewChangeEvent[] = [];
  private readonly jobs: NewJob[] = [];
  readonly redirects: { from: string; to: string }[] = [];

  constructor(
    readonly store: TenantStore,
    private readonly now: string,
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
    this.puts.set(object.id, object);
  }

  delete(id: string): void {
    this.puts.delete(id);
    this.deletes.add(id);
  }

  emit(event: Omit<NewChangeEvent, 'at'>): void {
    this.events.push({ ...event, at: this.now });
  }

  /** Jobs written to the tenant outbox with the batch (script gateway calls). */
  enqueue(jobs: readonly NewJob[]): void {
    this.jobs.push(...jobs);
  }

  /** Ids put by this unit of work (created or changed). */
  putIds(): string[] {
    return [...this.puts.keys()];
  }

  batch(): WriteBatch {
    return {
      put: [...this.puts.values()],
      delete: [...this.deletes],
      redirects: this.redirects,
      events: this.events,
      jobs: this.jobs,
    };
  }
}
