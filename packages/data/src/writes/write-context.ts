/**
 * What every write of the object service shares: the tenant's dependencies, the model's relations
 * by key, the compute environment of an account, a new unit of work, the names a change touches,
 * the gateway scripts a save triggers, and the commit of a unit of work (with its file claims and
 * the relay of the jobs it queued).
 */
import { ValidationError } from '@odp/core';
import type { AccessRowOptions, Account, FileClaim, RelationDef, StoredObject, WriteBatch } from '@odp/core';
import type { ComputeEnvironment, Draft } from '../compute.js';
import { hasValue } from '../compute.js';
import type { DataServiceDeps } from '../deps.js';
import { isPlainObject, sameJson } from '../encode.js';
import { filesByField } from '../held-files.js';
import { HISTORY_KEY } from '../history.js';
import { OutboxRelay } from '../outbox.js';
import { gatewayJobs, gatewayScripts } from '../scripts.js';
import { UnitOfWork } from '../unit-of-work.js';

export type Body = Record<string, unknown>;

/** A write's body as an object; 400 for anything else. */
export function bodyOf(value: unknown): Body {
  if (!isPlainObject(value)) throw new ValidationError('The request body must be a JSON object.');
  return value;
}

/** The draft as a stored object, with copies of its mutable parts. */
export function frozen(draft: Draft): StoredObject {
  return { ...draft, classes: [...draft.classes], links: { ...draft.links }, values: { ...draft.values } };
}

export class WriteContext {
  /** The model's relations by key. */
  readonly relations = new Map<string, RelationDef>();
  /** The relay of the tenant outbox into the job queue, shared by this context's commits. */
  private readonly outboxRelay: OutboxRelay | undefined;

  constructor(readonly deps: DataServiceDeps) {
    this.outboxRelay = deps.jobs ? new OutboxRelay(deps.store, deps.jobs) : undefined;
    for (const cls of deps.model.classes.values()) {
      for (const end of cls.relations.values()) this.relations.set(end.relation.key, end.relation);
    }
  }

  get model() {
    return this.deps.model;
  }

  now(): Date {
    return this.deps.now ? this.deps.now() : new Date();
  }

  env(account: Account): ComputeEnvironment {
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

  unitOfWork(): UnitOfWork {
    return new UnitOfWork(this.deps.store, this.now().toISOString(), (before, after) => [
      ...this.changedNames(before, after),
    ]);
  }

  /**
   * Names of the fields whose values and of the forward relations whose links differ between
   * `before` (null: a new object, so the fields and relations `after` gives a value) and `after`.
   * An empty value equals an absent one; the history entries kept beside the values are not a field.
   */
  changedNames(before: StoredObject | null, after: StoredObject): Set<string> {
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

  /**
   * Queues the gateway scripts of object `id` (as the pending state has it) that fire on `trigger`
   * into the unit of work; they are written with it. Only the object the caller saves or deletes
   * triggers scripts, not neighbours recalculated or unlinked along the way.
   */
  async triggerScripts(
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
   * Writes the unit of work. Uploads it stores are claimed before the write and settled after it
   * (see `UploadClaims`), so the bytes of released files are deleted only once the write that
   * released them is durable. When the batch queued jobs, the tenant outbox is relayed into the job
   * queue before the commit resolves (one relay for the writes that commit while one runs:
   * `OutboxRelay`; a failed relay leaves them in the outbox, where the worker's sweep finds them).
   */
  async commit(uow: UnitOfWork): Promise<void> {
    const batch = uow.batch();
    const files = this.deps.files;
    const changes = files ? this.fileChanges(uow) : { claims: [], released: [] };
    if (files && changes.claims.length > 0) await files.claim(changes.claims);
    let committed = false;
    await uow.slices.next();
    try {
      await this.write(batch);
      committed = true;
    } finally {
      if (files && (changes.claims.length > 0 || changes.released.length > 0)) {
        await files.settle(committed, changes.claims, committed ? changes.released : []);
      }
    }
    this.deps.onChange?.();
    if ((batch.jobs?.length ?? 0) > 0 && this.outboxRelay) {
      await this.outboxRelay.relay().catch((error: unknown) => this.deps.onRelayError?.(error));
    }
  }

  /**
   * Writes `batch` in one store write, with the access-control changes it makes: the unit of work
   * asks `accessRows` for them (as `options` say) and hands both to the store together. Resolves
   * once the write is committed; the next write's derivation starts as soon as this one is applied
   * (`applyWrite`), so the writes of one turn may share a commit. `written` hears of the batch once
   * its write settled.
   */
  async write(batch: WriteBatch, options?: AccessRowOptions): Promise<void> {
    try {
      await (this.deps.accessRows
        ? this.deps.accessRows.writeWithAccessRows(
            batch,
            (complete) => this.deps.store.applyWrite(complete),
            options,
          )
        : this.deps.store.write(batch));
    } finally {
      this.deps.written?.(batch);
    }
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
}
