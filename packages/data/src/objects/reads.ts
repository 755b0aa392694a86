/**
 * The reads of the object service: one object by id (as a class addresses it), the object a user
 * profile links to, and pages, distinct values, field values and aggregates of a query plan, each
 * through the account's access filter. Objects come back rendered (see {@link Renderer}).
 */
import { NotFoundError, UNRESTRICTED, invalidSearchCursor, leadingWithinJsonBytes } from '@odp/core';
import type {
  Account,
  AccessFilter,
  AggregatePlan,
  AggregateResult,
  DistinctBucket,
  DistinctPlan,
  ListPlan,
  Selection,
  StoredFile,
  StoredObject,
} from '@odp/core';
import { isUuid } from '@odp/query-engine';
import type { ListCursors } from '@odp/query-engine';
import { inReach, isEligible } from '../classes.js';
import type { ClassReach } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import { filesByField } from '../held-files.js';
import type { DataObject, Renderer } from '../render.js';

/** One page of a list plan: its objects and, when more follow, the sealed cursor of the next. */
export interface ObjectPage {
  readonly objects: DataObject[];
  readonly hasNext: boolean;
  readonly nextAfter?: string;
}

export class ObjectReads {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly renderer: Renderer,
  ) {}

  private get model() {
    return this.deps.model;
  }

  /** The classes this service reaches (see {@link ClassReach}). */
  get reach(): ClassReach {
    return this.deps.reach ?? 'data';
  }

  filter(account: Account): Promise<AccessFilter> {
    return this.deps.access.accessFilter(account);
  }

  /** `objects` as the account sees them (see {@link Renderer.render}). */
  async render(account: Account, objects: readonly StoredObject[]): Promise<DataObject[]> {
    return this.renderer.render(objects, this.deps.store, await this.filter(account));
  }

  /**
   * The object `id` as addressed under class `className` (absent: any class): NotFoundError when
   * the id is malformed, the object missing or invisible, its BASIC class could never hold the
   * class, or the object is of a class outside this service's reach (a system object in the data
   * service, whatever the account).
   */
  async get(account: Account, id: string, className?: string): Promise<StoredObject> {
    const cls = className === undefined ? undefined : this.model.classes.get(className);
    if (className !== undefined && !inReach(cls, this.reach)) throw new NotFoundError('Unknown class.');
    const object = isUuid(id)
      ? await this.deps.store.get(id.toLowerCase(), await this.filter(account))
      : null;
    if (
      !object ||
      (cls && !object.classes.includes(cls.name) && !isEligible(this.model, object.basicClass, cls))
    ) {
      throw new NotFoundError();
    }
    if (!inReach(this.model.classes.get(object.basicClass), this.reach)) throw new NotFoundError();
    return object;
  }

  /** The object `id` rendered, as {@link get} finds it. */
  async read(account: Account, id: string, className?: string): Promise<DataObject> {
    const [rendered] = await this.render(account, [await this.get(account, id, className)]);
    return rendered ?? {};
  }

  /** The id of the object that `id` was merged into, if it was; null otherwise. */
  mergedInto(id: string): Promise<string | null> {
    return isUuid(id) ? this.deps.store.redirectOf(id.toLowerCase()) : Promise.resolve(null);
  }

  /** The object the account's profile links to, when it has class `className`; else NotFoundError. */
  async own(account: Account, className: string): Promise<DataObject> {
    if (account.kind !== 'user' || !account.objectId) throw new NotFoundError();
    const object = await this.deps.store.get(account.objectId, await this.filter(account));
    if (!object || !object.classes.includes(className)) throw new NotFoundError();
    const [rendered] = await this.render(account, [object]);
    return rendered ?? {};
  }

  /**
   * One page of `plan`, after the sealed cursor `after` when given (keyset paging), held to the
   * page byte budget; `nextAfter` seals the position of its last object when more follow.
   */
  async page(account: Account, plan: ListPlan, after: string | null): Promise<ObjectPage> {
    const { rows, positions } = await this.deps.store.page(
      after === null ? plan : { ...plan, after: this.listCursors().open(after, plan) },
      await this.filter(account),
    );
    const objects = await this.withinBudget(await this.render(account, rows.slice(0, plan.size)));
    const hasNext = rows.length > objects.length;
    const last = positions[objects.length - 1];
    const nextAfter = hasNext && last !== undefined ? this.deps.listCursors?.seal(plan, last) : undefined;
    return { objects, hasNext, ...(nextAfter === undefined ? {} : { nextAfter }) };
  }

  /** The list cursors; an `after` cursor without them cannot be verified and is refused. */
  private listCursors(): ListCursors {
    const cursors = this.deps.listCursors;
    if (cursors === undefined) throw invalidSearchCursor('List cursors are not enabled.', 'after');
    return cursors;
  }

  /**
   * The leading objects of a page whose JSON fits the page byte budget (at least one, so paging
   * always advances); the next page then starts right after the last one kept. Measured in slices
   * of the event loop; the answer writes the text measured.
   */
  private async withinBudget(objects: DataObject[]): Promise<DataObject[]> {
    const budget = this.deps.limits?.maxPageBytes;
    return budget === undefined ? objects : leadingWithinJsonBytes(objects, budget);
  }

  async distinct(account: Account, plan: DistinctPlan): Promise<DistinctBucket[]> {
    return this.deps.store.distinct(plan, await this.filter(account));
  }

  /** The stored values of field `fieldName` in the selection, with the objects holding them. */
  async values(account: Account, selection: Selection, fieldName: string) {
    return this.deps.store.values(selection, fieldName, await this.filter(account));
  }

  async aggregate(account: Account, plan: AggregatePlan): Promise<AggregateResult> {
    return this.deps.store.aggregate(plan, await this.filter(account));
  }

  /**
   * The file `fileId` as held in a readable FILE or IMAGE field of object `objectId` (any class);
   * NotFoundError, as if absent, when the object is missing or unreadable or no such field holds it.
   */
  async heldFile(account: Account, objectId: string, fileId: string): Promise<StoredFile> {
    const object = await this.get(account, objectId);
    for (const [field, files] of filesByField(this.model, object)) {
      const file = field.hidden ? undefined : files.find((held) => held.fileId === fileId.toLowerCase());
      if (file) return file;
    }
    throw new NotFoundError();
  }

  /** Whether object `objectId` holds file `fileId` in a FILE or IMAGE field, regardless of access (sweeps). */
  async holdsFile(objectId: string, fileId: string): Promise<boolean> {
    const object = isUuid(objectId) ? await this.deps.store.get(objectId, UNRESTRICTED) : null;
    return (
      object !== null &&
      filesByField(this.model, object).some(([, files]) => files.some((file) => file.fileId === fileId))
    );
  }
}
