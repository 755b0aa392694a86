/**
 * The write rules of the object data API: Create, Create related, Patch, Delete and Merge, each
 * built up in one {@link UnitOfWork} and written as one atomic batch with its change events (so a
 * rejected request never leaves a partial write).
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, UNRESTRICTED, ValidationError } from '@odp/core';
import type {
  Account,
  ClassDef,
  FieldDef,
  FieldError,
  FileClaim,
  NewJob,
  RelationDef,
  RelationEnd,
  StoredFile,
  StoredObject,
} from '@odp/core';
import { isUuid } from '@odp/query-engine';
import { fieldsOf, isAny, isEligible, relationsOf, withAncestors } from './classes.js';
import type { ComputeEnvironment, Draft } from './compute.js';
import { compute, draftOf, hasValue, readsThroughRelations, readsVia, sealSecret } from './compute.js';
import type { DataServiceDeps } from './deps.js';
import { encodeField, fileIdOf, isPlainObject, jsonBytes, sameJson, storedFiles } from './encode.js';
import { filesByField } from './held-files.js';
import { HISTORY_KEY, recordHistory } from './history.js';
import { relayOutbox } from './outbox.js';
import { gatewayJobs, gatewayScripts } from './scripts.js';
import type { GatewayScript } from './scripts.js';
import { UnitOfWork } from './unit-of-work.js';

/** The existing object a Create related links the new object to, and the relation as seen from it. */
export interface CreateParentRef {
  readonly object: StoredObject;
  readonly end: RelationEnd;
}

type Body = Record<string, unknown>;

function bodyOf(value: unknown): Body {
  if (!isPlainObject(value)) throw new ValidationError('The request body must be a JSON object.');
  return value;
}

function frozen(draft: Draft): StoredObject {
  return { ...draft, classes: [...draft.classes], links: { ...draft.links }, values: { ...draft.values } };
}

export class ObjectWriter {
  private readonly relations = new Map<string, RelationDef>();

  constructor(private readonly deps: DataServiceDeps) {
    for (const cls of deps.model.classes.values()) {
      for (const end of cls.relations.values()) this.relations.set(end.relation.key, end.relation);
    }
  }

  private get model() {
    return this.deps.model;
  }

  private now(): Date {
    return this.deps.now ? this.deps.now() : new Date();
  }

  private env(account: Account): ComputeEnvironment {
    return {
      model: this.model,
      tenantId: this.deps.tenantId,
      now: () => this.now(),
      accountEmail: account.kind === 'user' ? account.email : null,
      ...(this.deps.baseUrl ? { baseUrl: this.deps.baseUrl } : {}),
      ...(this.deps.systemSetting ? { systemSetting: this.deps.systemSetting } : {}),
      ...(this.deps.secrets ? { secrets: this.deps.secrets } : {}),
    };
  }

  private unitOfWork(): UnitOfWork {
    return new UnitOfWork(this.deps.store, this.now().toISOString(), (before, after) => [
      ...this.changedNames(before, after),
    ]);
  }

  /**
   * Create and Create related: `cls` is the concrete class to create, `parent` the object of a
   * related path. Returns the new object's id.
   */
  async create(
    account: Account,
    cls: ClassDef,
    rawBody: unknown,
    parent?: CreateParentRef,
    id?: string,
  ): Promise<string> {
    const body = bodyOf(rawBody);
    const capability = await this.deps.access.mayCreate(
      account,
      cls.name,
      parent ? { object: parent.object, relation: parent.end } : undefined,
    );
    if (!capability.mayCreate || !capability.allowedClasses.includes(cls.name)) {
      throw new ForbiddenError('Access control does not allow creating this object.');
    }
    const uow = this.unitOfWork();
    const draft: Draft = {
      id: id ?? (this.deps.newId ? this.deps.newId() : randomUUID()),
      basicClass: cls.name,
      classes: [...cls.ancestors],
      name: null,
      values: {},
      links: {},
      createdAt: uow.timestamp,
      modifiedAt: uow.timestamp,
    };
    const supplied = parent ? this.linkParent(uow, draft, parent) : undefined;
    await this.applyBody(account, uow, draft, body, 'create', supplied);
    await this.finish(account, uow, draft, undefined, 'CREATE');
    uow.emit({ type: 'create', objectId: draft.id, classes: draft.classes });
    await this.recalculateNeighbours(account, uow, draft.id, undefined, 'all');
    await this.triggerScripts(account, uow, draft.id, 'CREATE');
    await this.commit(uow);
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

  /** Patch: applies the body per the Patch table, recalculates, checks and writes. */
  async patch(account: Account, object: StoredObject, rawBody: unknown): Promise<void> {
    const body = bodyOf(rawBody);
    if (!(await this.deps.access.mayModify(account, object))) {
      throw new ForbiddenError('Access control does not allow modifying this object.');
    }
    const uow = this.unitOfWork();
    uow.remember(object);
    const draft = draftOf(object);
    const cleared = await this.applyBody(account, uow, draft, body, 'patch');
    await this.finish(account, uow, draft, object, 'UPDATE', cleared);
    uow.emit({ type: 'update', objectId: draft.id, classes: draft.classes });
    await this.recalculateNeighbours(account, uow, draft.id, object, this.changedNames(object, draft));
    await this.triggerScripts(account, uow, draft.id, 'UPDATE');
    await this.commit(uow);
  }

  /** Delete with the rules of the Delete table (cascade, 409 on required single links, unlink). */
  async remove(account: Account, object: StoredObject): Promise<void> {
    if (!(await this.deps.access.mayDelete(account, object))) {
      throw new ForbiddenError('Access control does not allow deleting this object.');
    }
    const uow = this.unitOfWork();
    uow.remember(object);
    await this.planDelete(account, uow, object.id);
    await this.commit(uow);
  }

  /** Merge in the spec's order of effects; returns nothing, the winner keeps its id. */
  async merge(account: Account, winner: StoredObject, rawBody: unknown): Promise<void> {
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
    const filter = await this.deps.access.accessFilter(account);
    const loser = isUuid(loserId) ? await this.deps.store.get(loserId, filter) : null;
    if (!loser) throw new NotFoundError('The object to merge away was not found.');
    if (loser.basicClass !== winner.basicClass) {
      throw new ValidationError('Only objects of the same BASIC class can be merged.', [
        { field: 'loser', message: 'has a different BASIC class' },
      ]);
    }
    if (
      !(await this.deps.access.mayModify(account, winner)) ||
      !(await this.deps.access.mayDelete(account, loser))
    ) {
      throw new ForbiddenError('Access control does not allow this merge.');
    }
    const uow = this.unitOfWork();
    uow.remember(winner);
    uow.remember(loser);
    const draft = draftOf(winner);
    const cleared = isPlainObject(patch)
      ? await this.applyBody(account, uow, draft, patch, 'patch')
      : new Set<string>();
    draft.classes = withAncestors(this.model, [...draft.classes, ...loser.classes]);
    for (const { source, relationKey } of await uow.linkersOf(loser.id)) {
      if (source.id === loser.id) continue;
      const target = source.id === draft.id ? draft : draftOf(source);
      const ids = target.links[relationKey] ?? [];
      const relation = this.relations.get(relationKey);
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
    await this.recalculateNeighbours(account, uow, draft.id, winner, 'all');
    await this.triggerScripts(account, uow, draft.id, 'UPDATE');
    if (loser.id !== draft.id) uow.redirects.push({ from: loser.id, to: draft.id });
    await this.commit(uow);
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
    await compute(this.env(account), uow, draft, trigger, cleared);
    const missing = this.missingRequired(draft);
    if (missing.length > 0) {
      throw new ValidationError(
        `Required values are missing: ${missing.map((error) => error.field).join(', ')}.`,
        missing,
      );
    }
    recordHistory(
      fieldsOf(this.model, draft.classes).values(),
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
    for (const field of fieldsOf(this.model, draft.classes).values()) {
      if (field.required && !hasValue(draft.values[field.name]))
        missing.push({ field: field.name, message: 'is required' });
    }
    for (const end of relationsOf(this.model, draft.classes).values()) {
      if (end.direction === 'forward' && end.relation.required && !hasValue(draft.links[end.relation.key])) {
        missing.push({ field: end.name, message: 'is required' });
      }
    }
    return missing;
  }

  /** Objects linked through a relation whose target is a role class gain that class (and ancestors). */
  private async grantRoleClasses(uow: UnitOfWork, draft: Draft): Promise<void> {
    for (const end of relationsOf(this.model, draft.classes).values()) {
      const target = this.model.classes.get(end.otherClass);
      if (end.direction !== 'forward' || !target?.attachableTo) continue;
      for (const linked of await uow.loadMany(draft.links[end.relation.key] ?? [])) {
        if (linked.classes.includes(target.name)) continue;
        const gained = draftOf(linked.id === draft.id ? frozen(draft) : linked);
        gained.classes = withAncestors(this.model, [...gained.classes, target.name]);
        gained.modifiedAt = uow.timestamp;
        uow.put(frozen(gained));
        if (linked.id === draft.id) draft.classes = gained.classes;
        else uow.emit({ type: 'update', objectId: gained.id, classes: gained.classes });
      }
    }
  }

  /**
   * Applies a Create or Patch body to the draft. Unknown keys (including `__proto__` and
   * `constructor` unless the model has such a field) and inverse sides are ignored; every type
   * error is collected and reported at once (400), an unresolvable relation URI is a 404.
   * Returns the fields a patch explicitly cleared.
   */
  private async applyBody(
    account: Account,
    uow: UnitOfWork,
    draft: Draft,
    body: Body,
    mode: 'create' | 'patch',
    supplied?: string,
  ): Promise<Set<string>> {
    const fields = fieldsOf(this.model, draft.classes);
    const ends = relationsOf(this.model, draft.classes);
    const errors: FieldError[] = [];
    const cleared = new Set<string>();
    const references: { end: RelationEnd; refs: unknown[] }[] = [];
    const uploads = await this.uploadsIn(body, fields, draft);
    for (const key of Object.keys(body)) {
      const value = body[key];
      const field = fields.get(key);
      if (field) {
        if (value === null || value === '' || (value === undefined && mode === 'patch')) {
          delete draft.values[key];
          if (mode === 'patch') cleared.add(key);
          continue;
        }
        const encoded = encodeField(this.model, field, value, draft.values[key], uploads);
        const maxBytes = this.deps.limits?.maxValueBytes;
        if (!encoded.ok) errors.push({ field: key, message: encoded.message });
        else if (maxBytes !== undefined && jsonBytes(encoded.value) > maxBytes)
          errors.push({ field: key, message: `is larger than ${maxBytes} bytes` });
        else
          draft.values[key] = field.type === 'SECRET' ? sealSecret(this.deps, encoded.value) : encoded.value;
        continue;
      }
      const end = ends.get(key);
      if (!end || end.direction !== 'forward' || key === supplied) continue;
      if (end.multiple) {
        if (value === null) continue;
        if (!Array.isArray(value)) errors.push({ field: key, message: 'must be an array of URIs' });
        else references.push({ end, refs: value });
      } else if (value === null || value === '') {
        delete draft.links[end.relation.key];
      } else if (typeof value !== 'string') {
        errors.push({ field: key, message: 'must be a URI' });
      } else {
        references.push({ end, refs: [value] });
      }
    }
    for (const { end, refs } of references) {
      for (const ref of refs)
        if (typeof ref !== 'string') errors.push({ field: end.name, message: 'must be an array of URIs' });
    }
    const held = new Set<string>();
    for (const [field, files] of filesByField(this.model, draft)) {
      for (const { fileId } of files) {
        if (held.has(fileId)) errors.push({ field: field.name, message: 'holds a file another field holds' });
        held.add(fileId);
      }
    }
    if (errors.length > 0) throw new ValidationError('Invalid values.', dedupe(errors));
    const filter = await this.deps.access.accessFilter(account);
    for (const { end, refs } of references) {
      const ids: string[] = [];
      for (const ref of refs as string[]) {
        const id = this.idOf(ref);
        const visible = id ? await this.deps.store.get(id, filter) : null;
        if (visible) uow.remember(visible);
        const linked = visible ? await uow.load(visible.id) : null;
        if (!linked) throw new NotFoundError(`The related object of ${end.name} was not found.`);
        const target = this.model.classes.get(end.otherClass);
        if (
          !target ||
          !(isAny(linked.classes, [target.name]) || isEligible(this.model, linked.basicClass, target))
        ) {
          errors.push({ field: end.name, message: `must link ${target?.plural ?? end.otherClass}` });
        }
        if (!ids.includes(linked.id)) ids.push(linked.id);
      }
      if (ids.length > 0) draft.links[end.relation.key] = ids;
      else delete draft.links[end.relation.key];
    }
    if (errors.length > 0) throw new ValidationError('Invalid values.', dedupe(errors));
    return cleared;
  }

  /**
   * The recorded uploads the FILE and IMAGE values of `body` name (descriptors whose file the field
   * does not hold yet), looked up once before the body is encoded.
   */
  private async uploadsIn(
    body: Body,
    fields: ReadonlyMap<string, FieldDef>,
    draft: Draft,
  ): Promise<Map<string, StoredFile>> {
    const uploads = new Map<string, StoredFile>();
    const files = this.deps.files;
    if (!files) return uploads;
    for (const [key, value] of Object.entries(body)) {
      const field = fields.get(key);
      if (!field || (field.type !== 'FILE' && field.type !== 'IMAGE')) continue;
      const held = new Set(storedFiles(draft.values[key]).map((file) => file.fileId));
      for (const item of Array.isArray(value) ? value : [value]) {
        const fileId = isPlainObject(item) ? fileIdOf(item) : undefined;
        if (!fileId || held.has(fileId) || uploads.has(fileId)) continue;
        const upload = await files.upload(fileId);
        if (upload) uploads.set(fileId, upload);
      }
    }
    return uploads;
  }

  private fileIds(object: StoredObject | null): Set<string> {
    if (!object) return new Set();
    return new Set(filesByField(this.model, object).flatMap(([, files]) => files.map((file) => file.fileId)));
  }

  /**
   * What a unit of work does to files: uploads newly held by a put object (claims), and files that
   * a put object no longer holds or that a deleted object held (released).
   */
  private fileChanges(uow: UnitOfWork): { claims: FileClaim[]; released: string[] } {
    const claims: FileClaim[] = [];
    const released: string[] = [];
    const batch = uow.batch();
    for (const object of batch.put ?? []) {
      const before = this.fileIds(uow.original(object.id));
      const after = this.fileIds(object);
      for (const fileId of after) if (!before.has(fileId)) claims.push({ objectId: object.id, fileId });
      for (const fileId of before) if (!after.has(fileId)) released.push(fileId);
    }
    for (const id of batch.delete ?? []) released.push(...this.fileIds(uow.original(id)));
    return { claims, released };
  }

  /** The object id of a relation value: a bare UUID, or a URI of this tenant ending in one. */
  private idOf(ref: string): string | null {
    const trimmed = ref.trim();
    if (isUuid(trimmed)) return trimmed.toLowerCase();
    let path: string;
    try {
      path = new URL(trimmed, 'http://localhost').pathname;
    } catch {
      return null;
    }
    const segments = path.split('/').filter(Boolean);
    const id = segments.at(-1) ?? '';
    return segments[0] === 'data' && segments[1] === this.deps.tenantId && segments.length >= 4 && isUuid(id)
      ? id.toLowerCase()
      : null;
  }

  private async planDelete(account: Account, uow: UnitOfWork, rootId: string): Promise<void> {
    const doomed = new Set([rootId]);
    const queue = [rootId];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      for (const { source, relationKey } of await uow.linkersOf(id)) {
        if (!doomed.has(source.id) && this.relations.get(relationKey)?.cascadeDelete) {
          doomed.add(source.id);
          queue.push(source.id);
        }
      }
    }
    // DELETE scripts see every doomed object, and what it links to, as it was before the delete.
    for (const id of doomed) await this.triggerScripts(account, uow, id, 'DELETE');
    const neighbours = new Set<string>();
    const unlinkedIds = new Set<string>();
    for (const id of doomed) {
      for (const { source, relationKey } of await uow.linkersOf(id)) {
        if (doomed.has(source.id)) continue;
        const relation = this.relations.get(relationKey);
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
    await this.recalculate(account, uow, survivors, unlinkedIds);
  }

  /**
   * Recalculates the neighbours of object `id` whose formulas read what changed: objects linking to
   * it (they read it through the relation's name) and objects it links or linked to (they read it
   * through the inverse name, and their set of linked objects changes with its links). `changed` is
   * the set of field and relation names that changed, or `'all'` (create, merge).
   */
  private async recalculateNeighbours(
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
      const relation = this.relations.get(relationKey);
      if (relation && valuesMatter(this.readsVia(relation.declaredOn, relation.name)))
        neighbours.add(sourceId);
    }
    for (const key of new Set([...Object.keys(before?.links ?? {}), ...Object.keys(object?.links ?? {})])) {
      const relation = this.relations.get(key);
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

  /**
   * Names of the fields whose values and of the forward relations whose links differ between
   * `before` (null: a new object, so the fields and relations `after` gives a value) and `after`.
   * An empty value equals an absent one; the history entries kept beside the values are not a field.
   */
  private changedNames(before: StoredObject | null, after: StoredObject): Set<string> {
    const names = new Set<string>();
    const beforeValues = before?.values ?? {};
    const beforeLinks = before?.links ?? {};
    const differ = (a: unknown, b: unknown) => (hasValue(a) || hasValue(b)) && !sameJson(a, b);
    for (const name of new Set([...Object.keys(beforeValues), ...Object.keys(after.values)])) {
      if (name !== HISTORY_KEY && differ(beforeValues[name], after.values[name])) names.add(name);
    }
    for (const key of new Set([...Object.keys(beforeLinks), ...Object.keys(after.links)])) {
      const relation = this.relations.get(key);
      if (relation && differ(beforeLinks[key], after.links[key])) names.add(relation.name);
    }
    return names;
  }

  private readonly reads = new Map<string, ReadonlySet<string> | 'all'>();

  /** What formulas of `className` and its subclasses read through `relation` (cached per model). */
  private readsVia(className: string, relation: string): ReadonlySet<string> | 'all' {
    const key = `${className}#${relation}`;
    let reads = this.reads.get(key);
    if (reads === undefined) {
      const classes = withAncestors(
        this.model,
        this.model.classes.get(className)?.descendants ?? [className],
      );
      reads = readsVia(this.model, classes, relation);
      this.reads.set(key, reads);
    }
    return reads;
  }

  /**
   * Re-runs formulas of `ids` that read through relations (no scripts: the objects are not being
   * saved by the caller) and puts those whose values or name changed; objects in `changed` (already
   * put by the caller) get their update event either way.
   */
  private async recalculate(
    account: Account,
    uow: UnitOfWork,
    ids: readonly string[],
    changed: ReadonlySet<string>,
  ): Promise<void> {
    for (const object of await uow.loadMany(ids)) {
      if (!readsThroughRelations(this.model, object.classes)) {
        if (changed.has(object.id))
          uow.emit({ type: 'update', objectId: object.id, classes: object.classes });
        continue;
      }
      const draft = await compute(this.env(account), uow, draftOf(object), null);
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
  async recalculateObjects(ids: readonly string[]): Promise<number> {
    const system: Account = { kind: 'system', tenantId: this.deps.tenantId };
    const uow = this.unitOfWork();
    let changed = 0;
    for (const id of ids) {
      const object = await uow.load(id);
      if (!object) continue;
      const draft = await compute(this.env(system), uow, draftOf(object), null);
      if (draft.name === object.name && sameJson(draft.values, object.values)) continue;
      draft.modifiedAt = uow.timestamp;
      uow.put(frozen(draft));
      uow.emit({ type: 'update', objectId: draft.id, classes: draft.classes });
      changed += 1;
      await this.recalculateNeighbours(system, uow, draft.id, object, this.changedNames(object, draft));
    }
    await this.commit(uow);
    return changed;
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
    const objects = await this.deps.store.getMany(ids, UNRESTRICTED);
    const written = objects.map((object) => ({
      ...object,
      classes: withAncestors(this.model, object.classes),
    }));
    // Straight to the store, not through a unit of work, which would move `modifiedAt` forward:
    // the version stays the same because the data does, and the expectation still refuses the
    // batch (to be retried) when a writer changed one of the objects since it was read.
    await this.deps.store.write({
      expect: objects.map((object) => ({ id: object.id, modifiedAt: object.modifiedAt })),
      put: written,
    });
    return written;
  }

  /**
   * Queues the gateway scripts of object `id` (as the pending state has it) that fire on `trigger`
   * into the unit of work; they are written with it. Only the object the caller saves or deletes
   * triggers scripts, not neighbours recalculated or unlinked along the way.
   */
  private async triggerScripts(
    account: Account,
    uow: UnitOfWork,
    id: string,
    trigger: 'CREATE' | 'UPDATE' | 'DELETE',
  ): Promise<void> {
    const object = await uow.load(id);
    if (!object) return;
    const scripts = gatewayScripts(this.model, object.classes, trigger);
    if (scripts.length > 0) {
      uow.enqueue(await gatewayJobs(this.env(account), uow, object, scripts, trigger, this.deps.secretValue));
    }
  }

  /**
   * MANUAL run of the gateway script `script` on `object` (`POST /scripts/...`): needs record-level
   * WRITE on the object. Returns the queued job, or null when the script's condition is false;
   * RateLimitedError (nothing queued) when the gateway's service has reached its rate limit.
   */
  async runScript(account: Account, object: StoredObject, script: GatewayScript): Promise<NewJob | null> {
    if (!(await this.deps.access.mayModify(account, object))) {
      throw new ForbiddenError('Access control does not allow running scripts on this object.');
    }
    const uow = this.unitOfWork();
    uow.remember(object);
    const [job] = await gatewayJobs(
      this.env(account),
      uow,
      object,
      [script],
      'MANUAL',
      this.deps.secretValue,
    );
    if (!job) return null;
    await this.deps.assertGatewayWithinLimit?.(script.gateway);
    uow.enqueue([job]);
    await this.commit(uow);
    return job;
  }

  /**
   * Writes the unit of work. Uploads it stores are claimed before the write and settled after it
   * (see `UploadClaims`), so the bytes of released files are deleted only once the write that
   * released them is durable. When the batch queued jobs, the tenant outbox is relayed into the job
   * queue at once (a failed relay leaves them in the outbox, where the worker's sweep finds them).
   */
  private async commit(uow: UnitOfWork): Promise<void> {
    const batch = uow.batch();
    const files = this.deps.files;
    const changes = files ? this.fileChanges(uow) : { claims: [], released: [] };
    if (files && changes.claims.length > 0) await files.claim(changes.claims);
    let committed = false;
    try {
      await this.deps.store.write(batch);
      committed = true;
    } finally {
      if (files && (changes.claims.length > 0 || changes.released.length > 0)) {
        await files.settle(committed, changes.claims, committed ? changes.released : []);
      }
    }
    this.deps.onChange?.();
    if ((batch.jobs?.length ?? 0) > 0 && this.deps.jobs) {
      await relayOutbox(this.deps.store, this.deps.jobs).catch((error: unknown) =>
        this.deps.onRelayError?.(error),
      );
    }
  }
}

function dedupe(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.field}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
