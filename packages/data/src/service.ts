/**
 * The object service of one tenant: every operation of the object data API, given an account.
 * Reads pass the account's access filter into the store; writes go through {@link ObjectWriter}.
 * Paths are plural REST names as the HTTP layer received them; results are response bodies.
 */
import {
  ForbiddenError,
  NotFoundError,
  UNRESTRICTED,
  ValidationError,
  invalidSearchCursor,
  searchTextOf,
} from '@odp/core';
import type {
  Account,
  EventCursor,
  EventLog,
  SearchIndex,
  ClassDef,
  FieldDef,
  IndexKey,
  NewJob,
  RelationEnd,
  ReportDef,
  StoredFile,
  StoredObject,
} from '@odp/core';
import {
  cursorLinks,
  isUuid,
  pageLinks,
  parseAggregateQuery,
  parseDistinctQuery,
  parseListQuery,
  parseSelection,
  relationRef,
} from '@odp/query-engine';
import type { ListCursors, PageLinks, RelatedScope } from '@odp/query-engine';
import { classByPlural, inReach, isConcrete, isEligible, relatedEnd, relationsOf } from './classes.js';
import type { ClassReach } from './classes.js';
import { jsonBytes } from './encode.js';
import type { DataServiceDeps } from './deps.js';
import { filesByField } from './held-files.js';
import type { DataObject } from './render.js';
import { Renderer } from './render.js';
import { ObjectSearch } from './search.js';
import { ObjectWriter } from './writes/object-writer.js';
import { withWriteRetries } from './unit-of-work.js';
import { gatewayScripts } from './scripts.js';
import { relayOutbox } from './outbox.js';
import { SECRET_CLASS, namedObject } from './system-settings.js';
import { Tabular } from './tabular.js';
import { EventPages } from './event-pages.js';
import type { EventPage, StreamOptions } from './event-pages.js';
import type { ExportSheet, ImportTarget } from './tabular.js';

const MAX_SECRET_NAME = 200;
const MAX_SECRET_VALUE = 65_536;

/** A list path: `/{typeName}` or the related shape `/{relatedTypeName}/{relatedId}/{typeName}`. */
export interface ListPath {
  readonly typeName: string;
  readonly related?: { readonly typeName: string; readonly id: string };
}

export interface DataObjectPage {
  readonly _embedded: Record<string, DataObject[]>;
  readonly _links: PageLinks;
}

export type GetOneResult = { readonly object: DataObject } | { readonly redirect: string };

export interface DistinctResponse {
  readonly values: { readonly value: unknown; readonly count: number }[];
}

export interface AggregationsResponse {
  readonly total: number;
  readonly sum?: Record<string, number>;
  readonly avg?: Record<string, number>;
  readonly count?: Record<string, number>;
}

/** A parsed related path: the selection scope and the class listed under it. */
interface RelatedTarget {
  readonly anchor: StoredObject;
  readonly end: RelationEnd;
  readonly cls: ClassDef;
  readonly scope: RelatedScope;
}

export class DataService {
  private readonly renderer: Renderer;
  private readonly writer: ObjectWriter;
  private readonly searcher: ObjectSearch;
  private readonly tabular: Tabular;
  private readonly eventPages: EventPages;

  constructor(private readonly deps: DataServiceDeps) {
    this.renderer = new Renderer(deps.model, deps.tenantId);
    this.writer = new ObjectWriter(deps);
    this.searcher = new ObjectSearch(deps, this.renderer);
    this.tabular = new Tabular(deps, this.renderer);
    this.eventPages = new EventPages(deps, this.renderer);
  }

  private get model() {
    return this.deps.model;
  }

  /** The classes this service's routes reach (see {@link ClassReach}). */
  private get reach(): ClassReach {
    return this.deps.reach ?? 'data';
  }

  private base(): string {
    return `/${this.reach}/${this.deps.tenantId}`;
  }

  private async render(account: Account, objects: readonly StoredObject[]): Promise<DataObject[]> {
    return this.renderer.render(objects, this.deps.store, await this.deps.access.accessFilter(account));
  }

  /**
   * The object `id` as addressed under `typeName` (`items` addresses any object): 404 when the id is
   * malformed, the object missing or invisible, its BASIC class could never hold the type, or the
   * object is of a class outside this service's reach (a system object under `/data`, whatever the
   * account).
   */
  private async resolve(account: Account, typeName: string, id: string): Promise<StoredObject> {
    const cls = typeName === 'items' ? undefined : classByPlural(this.model, typeName, this.reach);
    const object = isUuid(id)
      ? await this.deps.store.get(id.toLowerCase(), await this.deps.access.accessFilter(account))
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

  async getOne(account: Account, typeName: string, id: string): Promise<GetOneResult> {
    try {
      const object = await this.resolve(account, typeName, id);
      const [rendered] = await this.render(account, [object]);
      return { object: rendered ?? {} };
    } catch (error) {
      const survivor =
        error instanceof NotFoundError && isUuid(id)
          ? await this.deps.store.redirectOf(id.toLowerCase())
          : null;
      if (!survivor) throw error;
      return { redirect: `${this.base()}/${typeName}/${survivor}` };
    }
  }

  /** Get own: the object the account's profile links to, when it has class `typeName`. */
  async getOwn(account: Account, typeName: string): Promise<DataObject> {
    const cls = classByPlural(this.model, typeName, this.reach);
    if (account.kind !== 'user' || !account.objectId) throw new NotFoundError();
    const object = await this.deps.store.get(account.objectId, await this.deps.access.accessFilter(account));
    if (!object || !object.classes.includes(cls.name)) throw new NotFoundError();
    const [rendered] = await this.render(account, [object]);
    return rendered ?? {};
  }

  private async relatedTarget(account: Account, path: ListPath): Promise<RelatedTarget | undefined> {
    if (!path.related) return undefined;
    const refCls = classByPlural(this.model, path.related.typeName, this.reach);
    const anchor = await this.resolve(account, path.related.typeName, path.related.id);
    const listed = this.model.byPlural.get(path.typeName);
    if (listed && !inReach(listed, this.reach) && !refCls.relations.has(path.typeName)) {
      throw new NotFoundError('Unknown class.');
    }
    const end = relatedEnd(this.model, refCls, path.typeName);
    const named = this.model.byPlural.get(path.typeName);
    const cls =
      named && !refCls.relations.has(path.typeName) ? named : this.model.classes.get(end.otherClass);
    if (!inReach(cls, this.reach)) throw new NotFoundError('Unknown class.');
    return { anchor, end, cls, scope: { anchorId: anchor.id, relation: relationRef(end) } };
  }

  private async listClass(
    account: Account,
    path: ListPath,
  ): Promise<{ cls: ClassDef; related?: RelatedTarget }> {
    const related = await this.relatedTarget(account, path);
    return related
      ? { cls: related.cls, related }
      : { cls: classByPlural(this.model, path.typeName, this.reach) };
  }

  private pathOf(path: ListPath, prefix = ''): string {
    const tail = path.related
      ? `${path.related.typeName}/${path.related.id}/${path.typeName}`
      : path.typeName;
    return `${this.base()}/${prefix}${tail}`;
  }

  /**
   * List and related list: a DataObjectPage of one page of the filtered, sorted selection. A list
   * (not a related list) with `q` is served from the search index instead (List rule 3).
   */
  async list(account: Account, path: ListPath, params: URLSearchParams): Promise<DataObjectPage> {
    const { cls, related } = await this.listClass(account, path);
    const plan = parseListQuery(this.model, cls.name, params, related?.scope);
    const q = params.get('q');
    const search = this.deps.search;
    if (q !== null && !related && search) {
      return this.searchList(account, path, cls, search, q, plan.size, params);
    }
    const after = params.get('after');
    const { rows, positions } = await this.deps.store.page(
      after === null ? plan : { ...plan, after: this.listCursors().open(after, plan) },
      await this.deps.access.accessFilter(account),
    );
    const objects = this.withinBudget(await this.render(account, rows.slice(0, plan.size)));
    const hasNext = rows.length > objects.length;
    const last = positions[objects.length - 1];
    const nextAfter = hasNext && last !== undefined ? this.deps.listCursors?.seal(plan, last) : undefined;
    return {
      _embedded: { [cls.plural]: objects },
      _links: pageLinks({
        path: this.pathOf(path),
        ...(cls.system ? {} : { excelPath: this.pathOf(path, 'excel/') }),
        params,
        page: plan.page,
        size: plan.size,
        hasNext,
        ...(plan.offset !== undefined ? { offset: plan.offset } : {}),
        returned: objects.length,
        ...(after === null ? {} : { after }),
        ...(nextAfter === undefined ? {} : { nextAfter }),
      }),
    };
  }

  /** The list cursors; an `after` parameter without them cannot be verified and is refused. */
  private listCursors(): ListCursors {
    const cursors = this.deps.listCursors;
    if (cursors === undefined) throw invalidSearchCursor('List cursors are not enabled.', 'after');
    return cursors;
  }

  /**
   * The leading objects of a page whose JSON fits the page byte budget (at least one, so paging
   * always advances); the `next` link then starts right after the last one kept.
   */
  private withinBudget(objects: DataObject[]): DataObject[] {
    const budget = this.deps.limits?.maxPageBytes;
    if (budget === undefined) return objects;
    let used = 0;
    for (let kept = 0; kept < objects.length; kept++) {
      used += jsonBytes(objects[kept]);
      if (used > budget && kept > 0) return objects.slice(0, kept);
    }
    return objects;
  }

  private async searchList(
    account: Account,
    path: ListPath,
    cls: ClassDef,
    search: SearchIndex,
    text: string,
    size: number,
    params: URLSearchParams,
  ): Promise<DataObjectPage> {
    const hits = await this.searcher.hits(account, search, {
      text,
      classes: [cls.name],
      size,
      cursor: params.get('cursor'),
    });
    return {
      _embedded: { [cls.plural]: hits.objects },
      _links: cursorLinks({
        path: this.pathOf(path),
        params,
        size,
        next: hits.next,
      }),
    };
  }

  /**
   * Global search (`GET /data/{tenant}/search`): `q` in the classes of `classes`, else in
   * `generalSearchClasses`; cursor paging. See {@link ObjectSearch.global}.
   */
  search(account: Account, params: URLSearchParams, generalSearchClasses: readonly string[]) {
    return this.searcher.global(account, params, generalSearchClasses);
  }

  async distinct(account: Account, path: ListPath, params: URLSearchParams): Promise<DistinctResponse> {
    const { cls, related } = await this.listClass(account, path);
    const plan = parseDistinctQuery(this.model, cls.name, params, related?.scope);
    const buckets = await this.deps.store.distinct(plan, await this.deps.access.accessFilter(account));
    if (plan.target.kind === 'field') {
      const field = cls.fields.get(plan.target.field);
      return {
        values: buckets.map((bucket) => ({
          value: field ? this.renderer.renderValue('', field, bucket.value) : bucket.value,
          count: bucket.count,
        })),
      };
    }
    return {
      values: buckets.map((bucket) => ({
        value:
          bucket.value === null || bucket.value === undefined
            ? null
            : {
                name: bucket.name ?? null,
                href: this.renderer.href({ id: String(bucket.value), basicClass: bucket.basicClass ?? '' }),
              },
        count: bucket.count,
      })),
    };
  }

  /** Field values: `{value, link}` of every visible object of the selection having a value. */
  async values(account: Account, path: ListPath, fieldName: string, params: URLSearchParams) {
    const { cls, related } = await this.listClass(account, path);
    const field = cls.fields.get(fieldName);
    if (!field || field.hidden || field.type === 'SECRET') {
      throw new ValidationError(`${fieldName} is not a field of ${cls.plural}.`, [
        { field: fieldName, message: 'is not a field' },
      ]);
    }
    const selection = parseSelection(this.model, cls.name, params, related?.scope);
    const rows = await this.deps.store.values(
      selection,
      fieldName,
      await this.deps.access.accessFilter(account),
    );
    return rows.map((row) => ({
      value: this.renderer.renderValue(row.objectId, field, row.value),
      link: this.renderer.href({ id: row.objectId, basicClass: row.basicClass }),
    }));
  }

  async aggregations(
    account: Account,
    path: ListPath,
    params: URLSearchParams,
  ): Promise<AggregationsResponse> {
    const { cls, related } = await this.listClass(account, path);
    const plan = parseAggregateQuery(this.model, cls.name, params, related?.scope);
    const result = await this.deps.store.aggregate(plan, await this.deps.access.accessFilter(account));
    return {
      total: result.total,
      ...(plan.sum.length > 0 ? { sum: { ...result.sum } } : {}),
      ...(plan.avg.length > 0 ? { avg: { ...result.avg } } : {}),
      ...(plan.count.length > 0 ? { count: { ...result.count } } : {}),
    };
  }

  /**
   * The sheets of an Excel export of a list or related list with its filters and sort (see
   * {@link Tabular.sheets}): 404 as the list would answer it. `q` is refused (400): a full-text list
   * comes from the search index, whose cursor paging has no end to export to.
   */
  async exportSheets(account: Account, path: ListPath, params: URLSearchParams): Promise<ExportSheet[]> {
    const { cls, related } = await this.listClass(account, path);
    if (params.has('q')) {
      throw new ValidationError('An export takes the list filters and sort, not the full-text q.', [
        { field: 'q', message: 'is not supported by the export' },
      ]);
    }
    return this.tabular.sheets(account, cls, params, related?.scope);
  }

  /**
   * The class an import writes (`typeName`, or its kind `classParam`), as a create would resolve it:
   * 404 for an unknown class, 400 for an abstract one or a class of another kind.
   */
  importTarget(account: Account, typeName: string, classParam?: string): ImportTarget {
    const cls = this.creatable(account, classByPlural(this.model, typeName, this.reach), classParam);
    return this.tabular.target(cls);
  }

  /** Readable objects of `className` by lower-cased name, for the relation cells of an import. */
  idsByName(account: Account, className: string): Promise<Map<string, string[]>> {
    return this.tabular.idsByName(account, className);
  }

  /** The field an import matches rows on; 400 unless it is an indexed single value field. */
  matchField(target: ImportTarget, fieldName: string): FieldDef {
    return this.tabular.assertMatchField(target.cls, fieldName);
  }

  /** Readable objects of the import target by the `matchKey` of their match field's value. */
  idsByValue(account: Account, target: ImportTarget, field: FieldDef): Promise<Map<IndexKey, string[]>> {
    return this.tabular.idsByValue(account, target.cls, field);
  }

  /** The concrete class to create for `typeName` with an optional `?class=` plural. */
  private creatable(account: Account, base: ClassDef, classParam: string | undefined): ClassDef {
    const cls = classParam ? classByPlural(this.model, classParam, this.reach) : base;
    if (
      cls !== base &&
      !base.descendants.includes(cls.name) &&
      !(base.attachableTo && isEligible(this.model, cls.name, base))
    ) {
      throw new ValidationError(`${classParam ?? ''} is not a kind of ${base.plural}.`, [
        { field: 'class', message: `is not a kind of ${base.plural}` },
      ]);
    }
    if (!isConcrete(cls)) {
      throw new ValidationError(
        `${cls.plural} cannot be created directly; choose a concrete class with ?class=.`,
        [{ field: 'class', message: 'is required for an abstract class' }],
      );
    }
    return cls;
  }

  /**
   * Object capabilities (interface spec, Capabilities): the WRITE and DELETE decisions that Patch and
   * Delete enforce. 404 when the object does not resolve to one the account can see.
   */
  async objectCapabilities(
    account: Account,
    typeName: string,
    id: string,
  ): Promise<{ mayModify: boolean; mayDelete: boolean }> {
    const object = await this.resolve(account, typeName, id);
    return {
      mayModify: await this.deps.access.mayModify(account, object),
      mayDelete: await this.deps.access.mayDelete(account, object),
    };
  }

  /**
   * Create capabilities, at the root or under a related path: the plural names of the concrete
   * classes a Create (related) would succeed for, from the same class resolution and CREATE
   * decision the write uses. 404 when the reference object is not visible; 400 when no relation
   * connects the path's classes or `?class=` is no kind of the type.
   */
  async createCapabilities(
    account: Account,
    path: ListPath,
    classParam?: string,
  ): Promise<{ mayCreate: boolean; allowedClasses: string[] }> {
    const related = await this.relatedTarget(account, path);
    const base = related ? related.cls : classByPlural(this.model, path.typeName, this.reach);
    const parent = related ? { object: related.anchor, relation: related.end } : undefined;
    const candidates = classParam
      ? [this.creatable(account, base, classParam)]
      : base.descendants
          .map((name) => this.model.classes.get(name))
          .filter((cls): cls is ClassDef => cls !== undefined && isConcrete(cls));
    const allowedClasses: string[] = [];
    for (const cls of candidates) {
      const capability = await this.deps.access.mayCreate(account, cls.name, parent);
      if (capability.allowedClasses.includes(cls.name)) allowedClasses.push(cls.plural);
    }
    return { mayCreate: allowedClasses.length > 0, allowedClasses };
  }

  /** Create: returns the new object's URI. */
  async create(account: Account, typeName: string, body: unknown, classParam?: string): Promise<string> {
    const cls = this.creatable(account, classByPlural(this.model, typeName, this.reach), classParam);
    const id = await withWriteRetries(() => this.writer.create(account, cls, body));
    return this.renderer.href({ id, basicClass: cls.name });
  }

  /** Create related: the path's reference object supplies the relation. Returns the new URI. */
  async createRelated(
    account: Account,
    path: Required<ListPath>,
    body: unknown,
    classParam?: string,
  ): Promise<string> {
    return withWriteRetries(async () => {
      const related = await this.relatedTarget(account, path);
      if (!related) throw new NotFoundError();
      const cls = this.creatable(account, related.cls, classParam);
      const parent = { object: related.anchor, end: related.end };
      const id = await this.writer.create(account, cls, body, parent);
      return this.renderer.href({ id, basicClass: cls.name });
    });
  }

  /** Patch: returns the object's URI. */
  async patch(account: Account, typeName: string, id: string, body: unknown): Promise<string> {
    return withWriteRetries(async () => {
      const object = await this.resolve(account, typeName, id);
      await this.writer.patch(account, object, body);
      return this.renderer.href(object);
    });
  }

  async remove(account: Account, typeName: string, id: string): Promise<void> {
    await withWriteRetries(async () =>
      this.writer.remove(account, await this.resolve(account, typeName, id)),
    );
  }

  /**
   * The file `fileId` as held in a readable FILE or IMAGE field of object `objectId` (any class);
   * NotFoundError, as if absent, when the object is missing or unreadable or no such field holds it.
   */
  async heldFile(account: Account, objectId: string, fileId: string): Promise<StoredFile> {
    const object = await this.resolve(account, 'items', objectId);
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

  /**
   * `POST /system/{tenant}/secretValues` with `{name, secretValue}`: stores the value encrypted
   * (a SECRET field) in the tenant's `system.secretValue` of that name, replacing the value of an
   * existing one. Resolves whether it was created. The value is never returned or put in an error;
   * `systemSetting(name)` in gateway parameters reads it decrypted. The caller checks the admin role.
   */
  async storeSecretValue(body: unknown): Promise<{ name: string; created: boolean; href: string }> {
    const input =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : null;
    const name = input?.['name'];
    const secretValue = input?.['secretValue'];
    const errors: { field: string; message: string }[] = [];
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_SECRET_NAME) {
      errors.push({ field: 'name', message: `must be a text of 1 to ${MAX_SECRET_NAME} characters` });
    }
    if (typeof secretValue !== 'string' || secretValue === '' || secretValue.length > MAX_SECRET_VALUE) {
      errors.push({ field: 'secretValue', message: `must be a text of 1 to ${MAX_SECRET_VALUE} characters` });
    }
    if (errors.length > 0 || typeof name !== 'string')
      throw new ValidationError('Invalid secret value.', errors);
    const system: Account = { kind: 'system', tenantId: this.deps.tenantId };
    return withWriteRetries(async () => {
      const existing = await namedObject(this.deps.store, SECRET_CLASS, name.trim());
      if (existing) {
        await this.writer.patch(system, existing, { secretValue });
        return { name: name.trim(), created: false, href: this.renderer.href(existing) };
      }
      const cls = this.model.classes.get(SECRET_CLASS);
      if (!cls) throw new NotFoundError('Unknown class.');
      const id = await this.writer.create(system, cls, { name: name.trim(), secretValue });
      return { name: name.trim(), created: true, href: this.renderer.href({ id, basicClass: cls.name }) };
    });
  }

  /**
   * Relays the jobs waiting in the tenant's outbox into the job queue (the worker's sweep, for jobs
   * whose relay right after their write did not happen: a crash, a queue briefly unavailable).
   * Resolves the number relayed; 0 without a queue.
   */
  async relayJobs(): Promise<number> {
    return this.deps.jobs ? relayOutbox(this.deps.store, this.deps.jobs) : 0;
  }

  /**
   * `GET /scripts/{tenant}/{typeName}/{id}` (the object's `_scripts` link): the names of the MANUAL
   * gateway scripts of the object's classes, in declaration order, each run with
   * `POST {_scripts.href}/{name}`. 404 when the object is not readable, as Get one.
   */
  async manualScripts(account: Account, typeName: string, id: string): Promise<string[]> {
    const object = await this.resolve(account, typeName, id);
    return [...new Set(gatewayScripts(this.model, object.classes, 'MANUAL').map((script) => script.name))];
  }

  /**
   * `POST /scripts/{tenant}/{typeName}/{id}/{scriptName}`: queues the MANUAL gateway script
   * `scriptName` of the object. 404 when the object is not readable or its classes declare no such
   * gateway script with trigger MANUAL; 403 without record-level WRITE. Resolves the queued job,
   * or null when the script's condition is false for the object (nothing is queued).
   */
  async runScript(
    account: Account,
    typeName: string,
    id: string,
    scriptName: string,
  ): Promise<NewJob | null> {
    const object = await this.resolve(account, typeName, id);
    const script = gatewayScripts(this.model, object.classes, 'MANUAL').find(
      (candidate) => candidate.name === scriptName,
    );
    if (!script) throw new NotFoundError('No such script.');
    return this.writer.runScript(account, object, script);
  }

  /** Merge: returns the winner's URI. */
  async merge(account: Account, typeName: string, id: string, body: unknown): Promise<string> {
    return withWriteRetries(async () => {
      const winner = await this.resolve(account, typeName, id);
      await this.writer.merge(account, winner, body);
      return this.renderer.href(winner);
    });
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
          const cls = classByPlural(this.model, entry.plural, this.reach);
          await withWriteRetries(() => this.writer.create(system, cls, body, undefined, entry.id));
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

  /**
   * The class a class job (recalculate, sync) of `typeName` works on: NotFoundError (404) for a
   * plural that names no class this service reaches.
   */
  jobClass(typeName: string): ClassDef {
    return classByPlural(this.model, typeName, this.reach);
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
   * What a report of object `id` (addressed as Get one addresses it, with its 404s) is rendered
   * from (model format section 8): `context` is the object as Get one renders it for `account`,
   * with each relation's name holding the linked objects the account may read, rendered the same
   * way (one level: their own relations stay links); null or an empty array when there are none.
   * `report` is the report `reportName` of one of the object's classes; NotFoundError without one.
   */
  async reportContext(
    account: Account,
    typeName: string,
    id: string,
    reportName: string,
  ): Promise<{ object: StoredObject; report: ReportDef; context: Record<string, unknown> }> {
    const object = await this.resolve(account, typeName, id);
    const report = object.classes
      .flatMap((name) => this.model.classes.get(name)?.reports ?? [])
      .find((candidate) => candidate.name === reportName);
    if (!report) throw new NotFoundError('The class has no report of this name.');
    const filter = await this.deps.access.accessFilter(account);
    const store = this.deps.store;
    const [rendered] = await this.render(account, [object]);
    const context: Record<string, unknown> = { ...rendered };
    for (const [name, end] of relationsOf(this.model, object.classes)) {
      const ids =
        end.direction === 'forward'
          ? (object.links[end.relation.key] ?? [])
          : (await store.incomingRefs([object.id], filter))
              .filter((ref) => ref.relationKey === end.relation.key)
              .map((ref) => ref.id);
      const found = new Map((await store.getMany(ids, filter)).map((linked) => [linked.id, linked]));
      const ordered = ids.flatMap((linkedId) => {
        const linked = found.get(linkedId);
        return linked ? [linked] : [];
      });
      const linked = await this.render(account, ordered);
      context[name] = end.multiple ? linked : (linked[0] ?? null);
    }
    return { object, report, context };
  }

  /**
   * Change events after `after` as the account's event stream sends them, in a page held to the
   * page byte budget (see {@link EventPages.after}).
   */
  eventsAfter(
    account: Account,
    after: EventCursor,
    limit: number,
    options: StreamOptions = {},
  ): Promise<EventPage> {
    return this.eventPages.after(account, after, limit, options);
  }

  /** The tenant's event log (where a new event stream starts, what a client's `Last-Event-ID` names). */
  get eventLog(): EventLog {
    return this.deps.store.events;
  }
}
