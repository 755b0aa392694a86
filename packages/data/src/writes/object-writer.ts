/**
 * The write rules of the object data API: Create, Create related, Patch, Delete and Merge. Each
 * plans its effects into a {@link UnitOfWork} given by the caller, which {@link ObjectWriter.written}
 * writes as one atomic batch with its change events (so a rejected request never leaves a partial
 * write). Several writes planned into one unit of work (a batch request) are written together or
 * not at all.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, UNRESTRICTED, ValidationError } from '@odp/core';
import type { Account, ClassDef, FieldError, NewJob, RelationEnd, StoredObject } from '@odp/core';
import { isUuid } from '@odp/query-engine';
import { fieldsOf, relationsOf, withAncestors } from '../classes.js';
import type { Draft } from '../compute.js';
import { compute, draftOf, hasValue } from '../compute.js';
import type { DataServiceDeps } from '../deps.js';
import { isPlainObject } from '../encode.js';
import { recordHistory } from '../history.js';
import { gatewayJobs } from '../scripts.js';
import type { GatewayScript } from '../scripts.js';
import type { UnitOfWork } from '../unit-of-work.js';
import { BodyApplier } from './apply-body.js';
import { Recalculation } from './recalculation.js';
import { WriteContext, bodyOf, frozen } from './write-context.js';

/** The existing object a Create related links the new object to, and the relation as seen from it. */
export interface CreateParentRef {
  readonly object: StoredObject;
  readonly end: RelationEnd;
}

export class ObjectWriter {
  private readonly ctx: WriteContext;
  private readonly body: BodyApplier;
  private readonly recalculation: Recalculation;

  constructor(deps: DataServiceDeps) {
    this.ctx = new WriteContext(deps);
    this.body = new BodyApplier(this.ctx);
    this.recalculation = new Recalculation(this.ctx);
  }

  /** See {@link Recalculation.objects}. */
  recalculateObjects(ids: readonly string[]): Promise<number> {
    return this.recalculation.objects(ids);
  }

  /**
   * Runs `plan` on a new unit of work and writes the unit (one atomic batch); resolves what `plan`
   * resolved. Nothing is written when `plan` throws.
   */
  async written<T>(plan: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const uow = this.ctx.unitOfWork();
    const result = await plan(uow);
    await this.ctx.commit(uow);
    return result;
  }

  /**
   * Create and Create related: `cls` is the concrete class to create, `parent` the object of a
   * related path. Returns the new object's id.
   */
  async create(
    uow: UnitOfWork,
    account: Account,
    cls: ClassDef,
    rawBody: unknown,
    parent?: CreateParentRef,
    id?: string,
  ): Promise<string> {
    const body = bodyOf(rawBody);
    const capability = await this.ctx.deps.access.mayCreate(
      account,
      cls.name,
      parent ? { object: parent.object, relation: parent.end } : undefined,
    );
    if (!capability.mayCreate || !capability.allowedClasses.includes(cls.name)) {
      throw new ForbiddenError('Access control does not allow creating this object.');
    }
    const draft: Draft = {
      id: id ?? (this.ctx.deps.newId ? this.ctx.deps.newId() : randomUUID()),
      basicClass: cls.name,
      classes: [...cls.ancestors],
      name: null,
      values: {},
      links: {},
      createdAt: uow.timestamp,
      modifiedAt: uow.timestamp,
    };
    const supplied = parent ? this.linkParent(uow, draft, parent) : undefined;
    await this.body.apply(account, uow, draft, body, 'create', supplied);
    await this.finish(account, uow, draft, undefined, 'CREATE');
    uow.emit({ type: 'create', objectId: draft.id, classes: draft.classes });
    await this.recalculation.neighbours(account, uow, draft.id, undefined, 'all');
    await this.ctx.triggerScripts(account, uow, draft.id, 'CREATE');
    return draft.id;
  }

  /** Links the new object to the parent of a related path; returns the body key the path supplies. */
  private linkParent(uow: UnitOfWork, draft: Draft, { object, end }: CreateParentRef): string {
    uow.remember(object);
    const key = end.relation.key;
    if (end.direction === 'inverse') {
      draft.links[key] = [object.id];
    } else {
      const parent = draftOf(object);
      parent.links[key] = end.multiple ? [...(parent.links[key] ?? []), draft.id] : [draft.id];
      parent.modifiedAt = uow.timestamp;
      uow.put(frozen(parent));
      uow.emit({ type: 'update', objectId: parent.id, classes: parent.classes });
    }
    return end.direction === 'inverse' ? end.relation.name : '';
  }

  /**
   * Patch: applies the body per the Patch table, recalculates and checks. `object` is the version
   * the unit of work holds (pending changes of earlier writes of the unit included).
   */
  async patch(uow: UnitOfWork, account: Account, object: StoredObject, rawBody: unknown): Promise<void> {
    const body = bodyOf(rawBody);
    if (!(await this.ctx.deps.access.mayModify(account, object))) {
      throw new ForbiddenError('Access control does not allow modifying this object.');
    }
    uow.remember(object);
    const draft = draftOf(object);
    const cleared = await this.body.apply(account, uow, draft, body, 'patch');
    await this.finish(account, uow, draft, object, 'UPDATE', cleared);
    uow.emit({ type: 'update', objectId: draft.id, classes: draft.classes });
    await this.recalculation.neighbours(account, uow, draft.id, object, this.ctx.changedNames(object, draft));
    await this.ctx.triggerScripts(account, uow, draft.id, 'UPDATE');
  }

  /** Delete with the rules of the Delete table (cascade, 409 on required single links, unlink). */
  async remove(uow: UnitOfWork, account: Account, object: StoredObject): Promise<void> {
    if (!(await this.ctx.deps.access.mayDelete(account, object))) {
      throw new ForbiddenError('Access control does not allow deleting this object.');
    }
    uow.remember(object);
    await this.planDelete(account, uow, object.id);
  }

  /** Merge in the spec's order of effects; returns nothing, the winner keeps its id. */
  async merge(uow: UnitOfWork, account: Account, winner: StoredObject, rawBody: unknown): Promise<void> {
    const body = bodyOf(rawBody);
    const loserRef = body['loser'];
    if (typeof loserRef !== 'string' || loserRef === '') {
      throw new ValidationError('loser is required.', [{ field: 'loser', message: 'is required' }]);
    }
    const patch = body['patch'];
    if (patch !== undefined && patch !== null && !isPlainObject(patch)) {
      throw new ValidationError('patch must be an object.', [
        { field: 'patch', message: 'must be an object' },
      ]);
    }
    const loserId = loserRef.slice(-36).toLowerCase();
    const filter = await this.ctx.deps.access.accessFilter(account);
    const loser = isUuid(loserId) ? await this.ctx.deps.store.get(loserId, filter) : null;
    if (!loser) throw new NotFoundError('The object to merge away was not found.');
    if (loser.basicClass !== winner.basicClass) {
      throw new ValidationError('Only objects of the same BASIC class can be merged.', [
        { field: 'loser', message: 'has a different BASIC class' },
      ]);
    }
    if (
      !(await this.ctx.deps.access.mayModify(account, winner)) ||
      !(await this.ctx.deps.access.mayDelete(account, loser))
    ) {
      throw new ForbiddenError('Access control does not allow this merge.');
    }
    uow.remember(winner);
    uow.remember(loser);
    const draft = draftOf(winner);
    const cleared = isPlainObject(patch)
      ? await this.body.apply(account, uow, draft, patch, 'patch')
      : new Set<string>();
    draft.classes = withAncestors(this.ctx.model, [...draft.classes, ...loser.classes]);
    for (const { source, relationKey } of await uow.linkersOf(loser.id)) {
      if (source.id === loser.id) continue;
      const target = source.id === draft.id ? draft : draftOf(source);
      const ids = target.links[relationKey] ?? [];
      const relation = this.ctx.relations.get(relationKey);
      target.links[relationKey] = relation?.multiple
        ? [...new Set(ids.map((linked) => (linked === loser.id ? draft.id : linked)))]
        : [draft.id];
      if (target !== draft) {
        target.modifiedAt = uow.timestamp;
        uow.put(frozen(target));
        uow.emit({ type: 'update', objectId: target.id, classes: target.classes });
      }
    }
    await this.finish(account, uow, draft, winner, 'UPDATE', cleared);
    uow.emit({ type: 'merge', objectId: draft.id, classes: draft.classes, loserId: loser.id });
    await this.planDelete(account, uow, loser.id);
    await this.recalculation.neighbours(account, uow, draft.id, winner, 'all');
    await this.ctx.triggerScripts(account, uow, draft.id, 'UPDATE');
    if (loser.id !== draft.id) uow.redirects.push({ from: loser.id, to: draft.id });
  }

  /**
   * Recalculates, checks required values, records history, grants role classes and puts the draft.
   * `before` is the stored version for an update, undefined for a create.
   */
  private async finish(
    account: Account,
    uow: UnitOfWork,
    draft: Draft,
    before: StoredObject | undefined,
    trigger: 'CREATE' | 'UPDATE',
    cleared: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    await compute(this.ctx.env(account), uow, draft, trigger, cleared);
    const missing = this.missingRequired(draft);
    if (missing.length > 0) {
      throw new ValidationError(
        `Required values are missing: ${missing.map((error) => error.field).join(', ')}.`,
        missing,
      );
    }
    recordHistory(
      fieldsOf(this.ctx.model, draft.classes).values(),
      before?.values,
      draft.values,
      uow.timestamp,
      account.kind === 'user' ? account.email : 'system',
    );
    draft.modifiedAt = uow.timestamp;
    uow.put(frozen(draft));
    await this.grantRoleClasses(uow, draft);
  }

  private missingRequired(draft: Draft): FieldError[] {
    const missing: FieldError[] = [];
    for (const field of fieldsOf(this.ctx.model, draft.classes).values()) {
      if (field.required && !hasValue(draft.values[field.name]))
        missing.push({ field: field.name, message: 'is required' });
    }
    for (const end of relationsOf(this.ctx.model, draft.classes).values()) {
      if (end.direction === 'forward' && end.relation.required && !hasValue(draft.links[end.relation.key])) {
        missing.push({ field: end.name, message: 'is required' });
      }
    }
    return missing;
  }

  /** Objects linked through a relation whose target is a role class gain that class (and ancestors). */
  private async grantRoleClasses(uow: UnitOfWork, draft: Draft): Promise<void> {
    for (const end of relationsOf(this.ctx.model, draft.classes).values()) {
      const target = this.ctx.model.classes.get(end.otherClass);
      if (end.direction !== 'forward' || !target?.attachableTo) continue;
      for (const linked of await uow.loadMany(draft.links[end.relation.key] ?? [])) {
        if (linked.classes.includes(target.name)) continue;
        const gained = draftOf(linked.id === draft.id ? frozen(draft) : linked);
        gained.classes = withAncestors(this.ctx.model, [...gained.classes, target.name]);
        gained.modifiedAt = uow.timestamp;
        uow.put(frozen(gained));
        if (linked.id === draft.id) draft.classes = gained.classes;
        else uow.emit({ type: 'update', objectId: gained.id, classes: gained.classes });
      }
    }
  }

  private async planDelete(account: Account, uow: UnitOfWork, rootId: string): Promise<void> {
    const doomed = new Set([rootId]);
    const queue = [rootId];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      for (const { source, relationKey } of await uow.linkersOf(id)) {
        if (!doomed.has(source.id) && this.ctx.relations.get(relationKey)?.cascadeDelete) {
          doomed.add(source.id);
          queue.push(source.id);
        }
      }
    }
    // DELETE scripts see every doomed object, and what it links to, as it was before the delete.
    for (const id of doomed) await this.ctx.triggerScripts(account, uow, id, 'DELETE');
    const neighbours = new Set<string>();
    const unlinkedIds = new Set<string>();
    for (const id of doomed) {
      for (const { source, relationKey } of await uow.linkersOf(id)) {
        if (doomed.has(source.id)) continue;
        const relation = this.ctx.relations.get(relationKey);
        if (relation?.required && !relation.multiple) {
          throw new ConflictError(
            `The object is still linked through the required relation ${relation.name}.`,
          );
        }
        const current = await uow.load(source.id);
        if (!current) continue;
        const unlinked = draftOf(current);
        unlinked.links[relationKey] = (unlinked.links[relationKey] ?? []).filter((linked) => linked !== id);
        if (unlinked.links[relationKey]?.length === 0) delete unlinked.links[relationKey];
        unlinked.modifiedAt = uow.timestamp;
        uow.put(frozen(unlinked));
        neighbours.add(source.id);
        unlinkedIds.add(source.id);
      }
      const object = await uow.load(id);
      for (const linked of Object.values(object?.links ?? {}).flat()) neighbours.add(linked);
      uow.delete(id);
      uow.emit({ type: 'delete', objectId: id, classes: object?.classes ?? [] });
    }
    const survivors = [...neighbours].filter((id) => !uow.isDeleted(id));
    await this.recalculation.recalculate(account, uow, survivors, unlinkedIds);
  }

  /**
   * Class sync (`POST /admin/{tenant}/{typeName}/sync`, docs/admin.md): writes each of `ids` back
   * as stored, its classes completed with the ancestors the current model gives them, so that the
   * store re-derives everything it derives on a write (class membership, value index, full-text
   * entry, sources of derived values) and the access-control layer the object's ACL rows. Values,
   * links and modification times stay as they are and no change event is written: the data did not
   * change. Resolves the objects as written.
   */
  async syncObjects(ids: readonly string[]): Promise<StoredObject[]> {
    const objects = await this.ctx.deps.store.getMany(ids, UNRESTRICTED);
    const written = objects.map((object) => ({
      ...object,
      classes: withAncestors(this.ctx.model, object.classes),
    }));
    // Straight to the store, not through a unit of work, which would move `modifiedAt` forward:
    // the version stays the same because the data does, and the expectation still refuses the
    // batch (to be retried) when a writer changed one of the objects since it was read.
    await this.ctx.write(
      {
        expect: objects.map((object) => ({ id: object.id, modifiedAt: object.modifiedAt })),
        put: written,
      },
      // Their classes and links may be as stored while the model's access control changed.
      { rederivePuts: true },
    );
    return written;
  }

  /**
   * MANUAL run of the gateway script `script` on `object` (`POST /scripts/...`): needs record-level
   * WRITE on the object. Returns the queued job, or null when the script's condition is false;
   * RateLimitedError (nothing queued) when the gateway's service has reached its rate limit.
   */
  async runScript(account: Account, object: StoredObject, script: GatewayScript): Promise<NewJob | null> {
    if (!(await this.ctx.deps.access.mayModify(account, object))) {
      throw new ForbiddenError('Access control does not allow running scripts on this object.');
    }
    const uow = this.ctx.unitOfWork();
    uow.remember(object);
    const [job] = await gatewayJobs(
      this.ctx.env(account),
      uow,
      object,
      [script],
      'MANUAL',
      this.ctx.deps.secretValue,
    );
    if (!job) return null;
    await this.ctx.deps.assertGatewayWithinLimit?.(script.gateway);
    uow.enqueue([job]);
    await this.ctx.commit(uow);
    return job;
  }
}
