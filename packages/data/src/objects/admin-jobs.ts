/**
 * The object service's work for administration and the worker, on class names and ids: the model's
 * default data, the objects of a class in batches, their recalculation and sync, and the relay of
 * the tenant's outbox. None of it is addressed by a URL.
 */
import { ForbiddenError, NotFoundError, UNRESTRICTED, searchTextOf } from '@odp/core';
import type { Account, ClassDef } from '@odp/core';
import { inReach } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import { relayOutbox } from '../outbox.js';
import { withWriteRetries } from '../unit-of-work.js';
import type { ObjectWriter } from '../writes/object-writer.js';

export class AdminJobs {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly writer: ObjectWriter,
  ) {}

  private get model() {
    return this.deps.model;
  }

  /**
   * Loads the model's default data: creates every object whose id does not exist yet (objects
   * referring to others are retried after those exist), never changes an existing one. Only the
   * system account and tenant admins may load it.
   */
  async loadDefaultData(account: Account): Promise<{ created: number; skipped: number }> {
    if (account.kind === 'user' && account.role !== 'admin') throw new ForbiddenError();
    let pending = [...this.model.defaultData];
    let created = 0;
    let skipped = 0;
    const remaining: typeof pending = [];
    for (const entry of pending) {
      const exists =
        (await this.deps.store.get(entry.id, { kind: 'all' })) ??
        (await this.deps.store.redirectOf(entry.id));
      if (exists) skipped += 1;
      else remaining.push(entry);
    }
    pending = remaining;
    const system: Account = { kind: 'system', tenantId: this.deps.tenantId };
    while (pending.length > 0) {
      const failed: typeof pending = [];
      let lastError: unknown;
      for (const entry of pending) {
        const body = JSON.parse(
          JSON.stringify(entry.body).replaceAll('{tenant}', this.deps.tenantId),
        ) as unknown;
        try {
          const cls = this.defaultDataClass(entry.plural);
          await withWriteRetries(() =>
            this.writer.written((uow) => this.writer.create(uow, system, cls, body, undefined, entry.id)),
          );
          created += 1;
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          failed.push(entry);
          lastError = error;
        }
      }
      if (failed.length === pending.length) throw lastError;
      pending = failed;
    }
    return { created, skipped };
  }

  /** The class a default data entry names by its plural (model format); 404 for any other. */
  private defaultDataClass(plural: string): ClassDef {
    const cls = this.model.byPlural.get(plural);
    if (!inReach(cls, this.deps.reach ?? 'data')) throw new NotFoundError('Unknown class.');
    return cls;
  }

  /** How many objects have class `cls` (subclasses and gained classes included). */
  async countOf(cls: ClassDef): Promise<number> {
    const plan = { className: cls.name, filters: [], sum: [], avg: [], count: [] };
    return (await this.deps.store.aggregate(plan, UNRESTRICTED)).total;
  }

  /**
   * The ids of the objects of class `cls` (subclasses and gained classes included), in id order,
   * in batches of at most `size`, read as the batches are consumed: an object created meanwhile
   * is met when its id comes after the batches already read.
   */
  async *idsOf(cls: ClassDef, size: number): AsyncGenerator<string[]> {
    let batch: string[] = [];
    for (let after: string | null = null; ;) {
      const objects = await this.deps.store.scan(after, size);
      if (objects.length === 0) break;
      for (const object of objects) {
        if (!object.classes.includes(cls.name)) continue;
        batch.push(object.id);
        if (batch.length === size) {
          yield batch;
          batch = [];
        }
      }
      after = objects.at(-1)?.id ?? null;
    }
    if (batch.length > 0) yield batch;
  }

  /** Recalculates the formulas of `ids` and of their dependants (see ObjectWriter); how many changed. */
  recalculateObjects(ids: readonly string[]): Promise<number> {
    return withWriteRetries(() => this.writer.recalculateObjects(ids));
  }

  /**
   * Re-derives what the platform derives from each of `ids` (see ObjectWriter.syncObjects) and,
   * with a search index the store does not maintain (Elasticsearch), their entries there, from
   * the objects as stored after the write. Resolves how many objects were synchronised.
   */
  async syncObjects(ids: readonly string[]): Promise<number> {
    const written = await withWriteRetries(() => this.writer.syncObjects(ids));
    const search = this.deps.search;
    if (search && !search.maintainedByStore && written.length > 0) {
      const objects = await this.deps.store.getMany(
        written.map((object) => object.id),
        UNRESTRICTED,
      );
      await search.index(
        await Promise.all(
          objects.map(async (object) => ({
            id: object.id,
            classes: object.classes,
            aclIds: [...new Set((await this.deps.store.aclRowsOf(object.id)).map((row) => row.acId))],
            text: searchTextOf(this.model, object),
          })),
        ),
      );
    }
    return written.length;
  }

  /**
   * Relays the jobs waiting in the tenant's outbox into the job queue (the worker's sweep, for jobs
   * whose relay right after their write did not happen: a crash, a queue briefly unavailable).
   * Resolves the number relayed; 0 without a queue.
   */
  async relayJobs(): Promise<number> {
    return this.deps.jobs ? relayOutbox(this.deps.store, this.deps.jobs) : 0;
  }
}
