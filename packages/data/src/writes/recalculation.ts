/**
 * Formula recalculation beyond the object being saved: the neighbours whose formulas read what a
 * write changed, and the class recalculation of the admin routes.
 */
import type { Account, StoredObject } from '@odp/core';
import { withAncestors } from '../classes.js';
import { compute, draftOf, readsThroughRelations, readsVia } from '../compute.js';
import { sameJson } from '../encode.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { WriteContext } from './write-context.js';
import { frozen } from './write-context.js';

export class Recalculation {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * Recalculates the neighbours of object `id` whose formulas read what changed: objects linking to
   * it (they read it through the relation's name) and objects it links or linked to (they read it
   * through the inverse name, and their set of linked objects changes with its links). `changed` is
   * the set of field and relation names that changed, or `'all'` (create, merge).
   */
  async neighbours(
    account: Account,
    uow: UnitOfWork,
    id: string,
    before: StoredObject | undefined,
    changed: ReadonlySet<string> | 'all',
  ): Promise<void> {
    const object = await uow.load(id);
    const neighbours = new Set<string>();
    const valuesMatter = (reads: ReadonlySet<string> | 'all') =>
      changed === 'all' || (reads !== 'all' && [...reads].some((name) => changed.has(name)));
    for (const { sourceId, relationKey } of await uow.linkRefsTo(id)) {
      const relation = this.ctx.relations.get(relationKey);
      if (relation && valuesMatter(this.readsVia(relation.declaredOn, relation.name)))
        neighbours.add(sourceId);
    }
    for (const key of new Set([...Object.keys(before?.links ?? {}), ...Object.keys(object?.links ?? {})])) {
      const relation = this.ctx.relations.get(key);
      if (!relation) continue;
      const reads = this.readsVia(relation.target, relation.inverse);
      const membership = changed === 'all' || changed.has(relation.name);
      if (!(membership ? reads === 'all' || reads.size > 0 : valuesMatter(reads))) continue;
      for (const linked of [...(before?.links[key] ?? []), ...(object?.links[key] ?? [])])
        neighbours.add(linked);
    }
    neighbours.delete(id);
    await this.recalculate(account, uow, [...neighbours], new Set());
  }

  private readonly reads = new Map<string, ReadonlySet<string> | 'all'>();

  /** What formulas of `className` and its subclasses read through `relation` (cached per model). */
  private readsVia(className: string, relation: string): ReadonlySet<string> | 'all' {
    const key = `${className}#${relation}`;
    let reads = this.reads.get(key);
    if (reads === undefined) {
      const classes = withAncestors(
        this.ctx.model,
        this.ctx.model.classes.get(className)?.descendants ?? [className],
      );
      reads = readsVia(this.ctx.model, classes, relation);
      this.reads.set(key, reads);
    }
    return reads;
  }

  /**
   * Re-runs formulas of `ids` that read through relations (no scripts: the objects are not being
   * saved by the caller) and puts those whose values or name changed; objects in `changed` (already
   * put by the caller) get their update event either way.
   */
  async recalculate(
    account: Account,
    uow: UnitOfWork,
    ids: readonly string[],
    changed: ReadonlySet<string>,
  ): Promise<void> {
    for (const object of await uow.loadMany(ids)) {
      if (!readsThroughRelations(this.ctx.model, object.classes)) {
        if (changed.has(object.id))
          uow.emit({ type: 'update', objectId: object.id, classes: object.classes });
        continue;
      }
      const draft = await compute(this.ctx.env(account), uow, draftOf(object), null);
      const differs = draft.name !== object.name || !sameJson(draft.values, object.values);
      if (!differs && !changed.has(object.id)) continue;
      if (differs) {
        draft.modifiedAt = uow.timestamp;
        uow.put(frozen(draft));
      }
      uow.emit({ type: 'update', objectId: object.id, classes: object.classes });
    }
  }

  /**
   * Class recalculation (`POST /admin/{tenant}/{typeName}/recalculate`, docs/formulas.md): re-runs
   * the formulas of each of `ids` as a save does (defaults of required fields, field formulas, the
   * name formula; no SET_VALUES scripts, no gateway scripts, no history entry), and for each object
   * that changed, the formulas of its neighbours that read what changed, as a write does. One atomic
   * write with an update event per changed object; resolves how many of `ids` changed.
   */
  async objects(ids: readonly string[]): Promise<number> {
    const system: Account = { kind: 'system', tenantId: this.ctx.deps.tenantId };
    const uow = this.ctx.unitOfWork();
    let changed = 0;
    for (const id of ids) {
      const object = await uow.load(id);
      if (!object) continue;
      const draft = await compute(this.ctx.env(system), uow, draftOf(object), null);
      if (draft.name === object.name && sameJson(draft.values, object.values)) continue;
      draft.modifiedAt = uow.timestamp;
      uow.put(frozen(draft));
      uow.emit({ type: 'update', objectId: draft.id, classes: draft.classes });
      changed += 1;
      await this.neighbours(system, uow, draft.id, object, this.ctx.changedNames(object, draft));
    }
    await this.ctx.commit(uow);
    return changed;
  }
}
