/**
 * The resource layer of one tenant's object data: the object data API as the HTTP routes address
 * it. It turns plural REST names into classes (within the service's reach), query strings into
 * plans, and the {@link ObjectService}'s objects into response bodies: HAL pages with their links,
 * hrefs of written objects, redirects of merged ones. It holds no data rule of its own.
 */
import { NotFoundError, ValidationError } from '@odp/core';
import type { Account, ClassDef, NewJob, RelationEnd, StoredObject } from '@odp/core';
import {
  cursorLinks,
  pageLinks,
  parseAggregateQuery,
  parseDistinctQuery,
  parseListQuery,
  parseSelection,
  relationRef,
} from '@odp/query-engine';
import type { PageLinks, RelatedScope } from '@odp/query-engine';
import { assertConcrete, classByPlural, inReach, isConcrete, isEligible, relatedEnd } from '../classes.js';
import type { ClassReach } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import { ObjectService } from '../objects/object-service.js';
import type { ReportContext } from '../objects/report-contexts.js';
import { keyedBatch, keyedCreate } from '../objects/keyed-writes.js';
import type { IdempotencyKeyUse } from '../objects/keyed-writes.js';
import type { IfMatch } from '../objects/versions.js';
import { versionTag } from '../objects/versions.js';
import { inOperation } from '../objects/writes.js';
import type { CreateParent, ObjectTarget, WriteOperation, WrittenObject } from '../objects/writes.js';
import type { DataObject, Renderer } from '../render.js';
import { ObjectSearch } from '../search.js';
import { batchResults, parseBatch, writeOperation } from './batch-request.js';
import type { BatchResult } from './batch-request.js';
import type { ExportSheet, ImportTarget } from '../tabular.js';

/** A list path: `/{typeName}` or the related shape `/{relatedTypeName}/{relatedId}/{typeName}`. */
export interface ListPath {
  readonly typeName: string;
  readonly related?: { readonly typeName: string; readonly id: string };
}

export interface DataObjectPage {
  readonly _embedded: Record<string, DataObject[]>;
  readonly _links: PageLinks;
}

/** Get one: the object with the entity tag of its version (`ETag`), or where a merged id leads. */
export type GetOneResult =
  { readonly object: DataObject; readonly etag: string } | { readonly redirect: string };

export interface DistinctResponse {
  readonly values: { readonly value: unknown; readonly count: number }[];
}

export interface AggregationsResponse {
  readonly total: number;
  readonly sum?: Record<string, number>;
  readonly avg?: Record<string, number>;
  readonly count?: Record<string, number>;
}

/** A written object as the resource layer answers it: its id and its URI (`Location`). */
export interface WrittenResource {
  readonly id: string;
  readonly href: string;
}

/** A parsed related path: the selection scope and the class listed under it. */
interface RelatedTarget {
  readonly anchor: StoredObject;
  readonly end: RelationEnd;
  readonly cls: ClassDef;
  readonly scope: RelatedScope;
}

export class DataResources {
  /** The object service this layer addresses; non-HTTP callers use it directly. */
  readonly objects: ObjectService;
  private readonly searcher: ObjectSearch;

  constructor(private readonly deps: DataServiceDeps) {
    this.objects = new ObjectService(deps);
    this.searcher = new ObjectSearch(deps, this.objects.renderer);
  }

  private get model() {
    return this.deps.model;
  }

  private get renderer(): Renderer {
    return this.objects.renderer;
  }

  /** The classes this layer's routes reach (see {@link ClassReach}). */
  private get reach(): ClassReach {
    return this.deps.reach ?? 'data';
  }

  private base(): string {
    return `/${this.reach}/${this.deps.tenantId}`;
  }

  /** The class a plural names within the reach (`items`: any class, undefined); else 404. */
  private classOf(typeName: string): string | undefined {
    return typeName === 'items' ? undefined : classByPlural(this.model, typeName, this.reach).name;
  }

  /** The object `id` as addressed under `typeName` (see {@link ObjectReads.get}). */
  private async resolve(account: Account, typeName: string, id: string): Promise<StoredObject> {
    const className = this.classOf(typeName);
    return this.objects.reads.get(account, id, className);
  }

  /** Get one; an id merged into another answers a redirect to the survivor under the same plural. */
  async getOne(account: Account, typeName: string, id: string): Promise<GetOneResult> {
    try {
      const object = await this.resolve(account, typeName, id);
      const [rendered] = await this.objects.reads.render(account, [object]);
      return { object: rendered ?? {}, etag: versionTag(object) };
    } catch (error) {
      const survivor = error instanceof NotFoundError ? await this.objects.reads.mergedInto(id) : null;
      if (!survivor) throw error;
      return { redirect: `${this.base()}/${typeName}/${survivor}` };
    }
  }

  /** Get own: the object the account's profile links to, when it has class `typeName`. */
  async getOwn(account: Account, typeName: string): Promise<DataObject> {
    return this.objects.reads.own(account, classByPlural(this.model, typeName, this.reach).name);
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
    if (q !== null && !related && this.deps.search) {
      const hits = await this.searcher.hits(account, this.deps.search, {
        text: q,
        classes: [cls.name],
        size: plan.size,
        cursor: params.get('cursor'),
      });
      return {
        _embedded: { [cls.plural]: hits.objects },
        _links: cursorLinks({ path: this.pathOf(path), params, size: plan.size, next: hits.next }),
      };
    }
    const after = params.get('after');
    const { objects, hasNext, nextAfter } = await this.objects.reads.page(account, plan, after);
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
    const buckets = await this.objects.reads.distinct(account, plan);
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
    const rows = await this.objects.reads.values(account, selection, fieldName);
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
    const result = await this.objects.reads.aggregate(account, plan);
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
    return this.objects.tabular.sheets(account, cls, params, related?.scope);
  }

  /**
   * The class an import writes (`typeName`, or its kind `classParam`), as a create would resolve it:
   * 404 for an unknown class, 400 for an abstract one or a class of another kind.
   */
  importTarget(account: Account, typeName: string, classParam?: string): ImportTarget {
    const cls = this.creatable(classByPlural(this.model, typeName, this.reach), classParam);
    return this.objects.tabular.target(cls);
  }

  /** The concrete class a Create of `typeName` creates, with an optional `?class=` plural. */
  createdClass(typeName: string, classParam: string | undefined): ClassDef {
    return this.creatable(classByPlural(this.model, typeName, this.reach), classParam);
  }

  /** The concrete class to create for `typeName` with an optional `?class=` plural. */
  private creatable(base: ClassDef, classParam: string | undefined): ClassDef {
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
    assertConcrete(cls);
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
      ? [this.creatable(base, classParam)]
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

  private written(object: WrittenObject): WrittenResource {
    return { id: object.id, href: this.renderer.href(object) };
  }

  /** Create: the new object's id and URI. `key`: sent with an `Idempotency-Key`. */
  async create(
    account: Account,
    typeName: string,
    body: unknown,
    classParam?: string,
    key?: IdempotencyKeyUse,
  ): Promise<WrittenResource> {
    const cls = this.createdClass(typeName, classParam);
    const keyed = key && keyedCreate(key, (object) => this.renderer.href(object));
    return this.written(await this.objects.writes.create(account, cls.name, body, {}, keyed));
  }

  /** Create related: the path's reference object supplies the relation. The new object's id and URI. */
  async createRelated(
    account: Account,
    path: Required<ListPath>,
    body: unknown,
    classParam?: string,
    key?: IdempotencyKeyUse,
  ): Promise<WrittenResource> {
    const { className, parent } = await this.relatedCreate(account, path, classParam);
    const keyed = key && keyedCreate(key, (object) => this.renderer.href(object));
    return this.written(await this.objects.writes.create(account, className, body, { parent }, keyed));
  }

  /** Patch: the object's id and URI. `ifMatch`: the versions it requires (412 otherwise). */
  async patch(
    account: Account,
    typeName: string,
    id: string,
    body: unknown,
    ifMatch?: IfMatch,
  ): Promise<WrittenResource> {
    const target = this.target(typeName, id, ifMatch);
    return this.written(await this.objects.writes.patch(account, target, body));
  }

  async remove(account: Account, typeName: string, id: string, ifMatch?: IfMatch): Promise<void> {
    await this.objects.writes.remove(account, this.target(typeName, id, ifMatch));
  }

  /** Merge: the winner's id and URI. */
  async merge(
    account: Account,
    typeName: string,
    id: string,
    body: unknown,
    ifMatch?: IfMatch,
  ): Promise<WrittenResource> {
    const target = this.target(typeName, id, ifMatch);
    return this.written(await this.objects.writes.merge(account, target, body));
  }

  /** The object `id` under `typeName`, as a write addresses it. */
  target(typeName: string, id: string, ifMatch: IfMatch | undefined): ObjectTarget {
    const className = this.classOf(typeName);
    return { id, ...(className ? { className } : {}), ...(ifMatch ? { ifMatch } : {}) };
  }

  /**
   * A batch (`POST /data/{tenant}/batch`, see {@link parseBatch}): its operations resolved as their
   * own requests would be and written as one unit of work (see {@link ObjectWrites.batch}). Per
   * operation, what its own request answers: status and `Location` (with the object's id).
   */
  async batch(account: Account, body: unknown, key?: IdempotencyKeyUse): Promise<{ results: BatchResult[] }> {
    const requested = parseBatch(body, this.base());
    const operations: WriteOperation[] = [];
    for (const [index, operation] of requested.entries()) {
      operations.push(await inOperation(index, () => writeOperation(this, account, operation)));
    }
    const results = (written: readonly (WrittenObject | null)[]) =>
      batchResults(operations, written, (object) => this.renderer.href(object));
    const keyed = key && keyedBatch(key, results);
    return results(await this.objects.writes.batch(account, operations, keyed));
  }

  /** The class a Create related creates and the parent it links the new object to. */
  async relatedCreate(
    account: Account,
    path: Required<ListPath>,
    classParam: string | undefined,
  ): Promise<{ className: string; parent: CreateParent }> {
    const related = await this.relatedTarget(account, path);
    if (!related) throw new NotFoundError();
    const cls = this.creatable(related.cls, classParam);
    const anchorClass = classByPlural(this.model, path.related.typeName, this.reach);
    return {
      className: cls.name,
      parent: { id: related.anchor.id, className: anchorClass.name, end: related.end },
    };
  }

  /** `POST /system/{tenant}/secretValues` (see {@link ObjectWrites.storeSecretValue}), with the secret's URI. */
  async storeSecretValue(body: unknown): Promise<{ name: string; created: boolean; href: string }> {
    const { name, created, object } = await this.objects.writes.storeSecretValue(body);
    return { name, created, href: this.renderer.href(object) };
  }

  /**
   * `GET /scripts/{tenant}/{typeName}/{id}` (the object's `_scripts` link): the names of the MANUAL
   * gateway scripts of the object's classes, each run with `POST {_scripts.href}/{name}`.
   */
  manualScripts(account: Account, typeName: string, id: string): Promise<string[]> {
    return this.objects.scripts.manual(account, id, this.classOf(typeName));
  }

  /** `POST /scripts/{tenant}/{typeName}/{id}/{scriptName}` (see {@link ScriptRuns.run}). */
  runScript(account: Account, typeName: string, id: string, scriptName: string): Promise<NewJob | null> {
    return this.objects.scripts.run(account, id, scriptName, this.classOf(typeName));
  }

  /**
   * The class a class job (recalculate, sync) of `typeName` works on: NotFoundError (404) for a
   * plural that names no class this service reaches.
   */
  jobClass(typeName: string): ClassDef {
    return classByPlural(this.model, typeName, this.reach);
  }

  /** What a report of object `id` under `typeName` is rendered from (see {@link ReportContexts.of}). */
  reportContext(account: Account, typeName: string, id: string, reportName: string): Promise<ReportContext> {
    return this.objects.reports.of(account, id, reportName, this.classOf(typeName));
  }
}
