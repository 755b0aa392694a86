/**
 * The MongoDB tenant store: one database per tenant (isolation by construction), implementing the
 * `TenantStore` port of `@odp/core` over the official driver. See README.md for the collections and
 * for what a write guarantees on which server.
 *
 * Uses only what FerretDB v1 serves as well as MongoDB 7+: find, countDocuments, updates, bulk
 * writes, $unwind/$group/$sum pipelines (one accumulator per pipeline). Never $lookup, $facet, $avg,
 * text indexes, change streams; transactions only when the server has them (capability detection).
 */
import {
  ConflictError,
  NUMERIC_TYPES,
  NotFoundError,
  WriteConflictError,
  derivedSourcesOf,
  fromIndexKey,
  indexKeysOf,
  indexSignature,
  indexedField,
  integerEventLog,
} from '@odp/core';
import type {
  AccessFilter,
  AclRow,
  AggregatePlan,
  AggregateResult,
  ChangeEvent,
  DistinctBucket,
  DistinctPlan,
  EventLog,
  Holding,
  IncomingBound,
  IncomingRef,
  IndexKey,
  ListPage,
  ListPlan,
  ListPosition,
  Model,
  NewChangeEvent,
  NewJob,
  ObjectRef,
  Selection,
  StoredObject,
  TenantStore,
  WriteBatch,
  WriteExpectation,
} from '@odp/core';
import { randomBytes } from 'node:crypto';
import type { ClientSession, Collection, Db, Document, MongoClient } from 'mongodb';
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import {
  aclRowsOfDocument,
  comparable,
  compareText,
  fieldPath,
  fold,
  fromDocument,
  linkEntry,
  objectIndexedFields,
  parseLinkEntry,
  targetsOf,
  toDocument,
} from './documents.js';
import type { AclEntry, ObjectDoc } from './documents.js';
import { hiddenAmong, restricts } from './derived.js';
import { SelectionCompiler, accessCondition, and } from './query.js';
import type { ObjectFilter } from './query.js';
import { MongoSearchIndex } from './search.js';
import type { SearchPageDoc } from './search.js';

export interface MongoTenantStoreOptions {
  /** The process's client (shared by every tenant; the store never closes it). */
  readonly client: MongoClient;
  /** The tenant's database. */
  readonly database: string;
  /** Objects re-derived per bulk write by a model change. Default 500. */
  readonly rebuildBatchSize?: number;
  /** How long a search paging can be continued (its frozen ranking is kept). Default 15 minutes. */
  readonly searchCursorTtlMs?: number;
}

interface HoldingDoc {
  anchor: string;
  def: string;
  holder: string;
  ac: string;
  steps: string[];
  /** Position within the (anchor, definition) set, so holdings read back in written order. */
  pos: number;
}

/** An event of the log; `_id` is its position (see `appendEvents`). */
interface EventDoc {
  _id: number;
  type: ChangeEvent['type'];
  objectId: string;
  classes: string[];
  loserId?: string;
  at: string;
  /** The changed field names (ChangeEvent.changed); absent on events written before it was kept. */
  changed?: string[];
}

/**
 * A claim on one value of a `unique` field: `_id` is the field's path and the folded value, which the
 * server keeps unique, so of two concurrent writers of one value exactly one inserts the claim.
 */
interface ClaimDoc {
  _id: string;
  owner: string;
  at: Date;
}

/**
 * A claim on one version of an object (`_id`: the object id and the `modifiedAt` a writer read, see
 * `WriteBatch.expect`), held while that writer's batch is applied: the server keeps `_id` unique, so
 * of two writers that read the same version exactly one holds it.
 */
interface VersionClaimDoc {
  _id: string;
  at: Date;
}

/** A job of the tenant's outbox (`WriteBatch.jobs`), as JSON text (payload keys may hold `.` or `$`). */
interface OutboxDoc {
  _id: string;
  seq: number;
  job: string;
}

interface RedirectDoc {
  _id: string;
  to: string;
}

interface MetaDoc {
  _id: string;
  /** Counters (`objects`, `jobs`): the last value handed out. */
  n?: number;
  /** `model`: the index signature the derived fields were built with. */
  signature?: string;
  /** `cursorKey`: the random key that signs search cursors (base64). */
  key?: string;
}

/** Options of a driver call: the batch's session when the write runs in a transaction. */
type Session = { session?: ClientSession };

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
/**
 * A claim whose owner does not hold its value counts as a write in flight for this long, then as
 * left behind (by a batch that failed or a process that died) and may be taken over.
 */
const CLAIM_GRACE_MS = 30_000;

/**
 * Opens the store of one tenant: detects whether the server runs transactions (a replica set or a
 * sharded cluster says so in `hello`) and creates the collections' fixed indexes.
 */
export async function openMongoTenantStore(options: MongoTenantStoreOptions): Promise<MongoTenantStore> {
  const db = options.client.db(options.database);
  const hello = (await db.command({ hello: 1 })) as { setName?: string; msg?: string };
  const transactions = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  const meta = db.collection<MetaDoc>('meta');
  const key = await meta
    .findOneAndUpdate(
      { _id: 'cursorKey' },
      { $setOnInsert: { key: randomBytes(32).toString('base64') } },
      { upsert: true, returnDocument: 'after' },
    )
    .catch(async (error: unknown) => {
      // Another process created the key at the same moment: use theirs.
      if (isDuplicateKey(error)) return meta.findOne({ _id: 'cursorKey' });
      throw error;
    });
  const secret = Buffer.from(key?.key ?? '', 'base64');
  const store = new MongoTenantStore(db, transactions, options, secret);
  await store.createFixedIndexes();
  return store;
}

export class MongoTenantStore implements TenantStore {
  /** The tenant's full-text search, on the search words `write` keeps on each object document. */
  readonly search: MongoSearchIndex;
  private readonly objects: Collection<ObjectDoc>;
  private readonly holdings: Collection<HoldingDoc>;
  private readonly eventDocs: Collection<EventDoc>;
  /**
   * The change events `write` appends: a position is an event's `_id`, and an event is only ever
   * inserted at the position right after an existing one (`appendEvents`), so the log has no gap
   * and a reader never passes a position that an event fills later.
   */
  readonly events: EventLog = integerEventLog({
    newest: () => this.newestEventPosition({}),
    after: async (position, limit) => {
      const docs = await this.eventDocs
        .find({ _id: { $gt: position } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => ({
        position: doc._id,
        event: {
          type: doc.type,
          objectId: doc.objectId,
          classes: doc.classes,
          ...(doc.loserId === undefined ? {} : { loserId: doc.loserId }),
          at: doc.at,
          ...(doc.changed === undefined ? {} : { changed: doc.changed }),
        },
      }));
    },
  });
  private readonly redirects: Collection<RedirectDoc>;
  private readonly claims: Collection<ClaimDoc>;
  private readonly versionClaims: Collection<VersionClaimDoc>;
  private readonly outboxJobs: Collection<OutboxDoc>;
  private readonly meta: Collection<MetaDoc>;
  private readonly rebuildBatchSize: number;
  /** Set by `applyModel`, which every query and write requires first (`requireModel`). */
  private model!: Model;
  private compiler!: SelectionCompiler;
  private modelApplied = false;
  /** Incremented by each rebuild; a rebuild whose generation is no longer current stops. */
  private rebuildGeneration = 0;

  constructor(
    private readonly db: Db,
    /** The server runs multi-document transactions: each batch is then one (see `write`). */
    private readonly transactions: boolean,
    private readonly options: MongoTenantStoreOptions,
    secret: Buffer,
  ) {
    this.objects = db.collection<ObjectDoc>('objects');
    this.holdings = db.collection<HoldingDoc>('holdings');
    this.eventDocs = db.collection<EventDoc>('events');
    this.redirects = db.collection<RedirectDoc>('redirects');
    this.claims = db.collection<ClaimDoc>('uniqueClaims');
    this.versionClaims = db.collection<VersionClaimDoc>('versionClaims');
    this.outboxJobs = db.collection<OutboxDoc>('outbox');
    this.meta = db.collection<MetaDoc>('meta');
    this.rebuildBatchSize = Math.max(1, Math.trunc(options.rebuildBatchSize ?? 500));
    this.search = new MongoSearchIndex({
      objects: this.objects,
      pages: db.collection<SearchPageDoc>('searchPages'),
      secret,
      cursorTtlMs: options.searchCursorTtlMs ?? 15 * 60_000,
      rebuild: (model) => this.rebuildDerived(model),
    });
  }

  /** The indexes every tenant database has, whatever its model. Idempotent. */
  async createFixedIndexes(): Promise<void> {
    await ensureIndexes(this.objects, [
      { key: { classes: 1, seq: 1 }, name: 'classes_seq' },
      { key: { seq: 1 }, name: 'seq' },
      { key: { lk: 1 }, name: 'lk' },
      { key: { lt: 1 }, name: 'lt' },
      { key: { nk: 1 }, name: 'nk' },
      { key: { ac: 1 }, name: 'ac' },
      { key: { sw: 1 }, name: 'sw' },
    ]);
    await ensureIndexes(this.holdings, [
      { key: { holder: 1 }, name: 'holder' },
      { key: { ac: 1 }, name: 'ac' },
      { key: { anchor: 1, def: 1 }, name: 'anchor_def' },
    ]);
    await ensureIndexes(this.redirects, [{ key: { to: 1 }, name: 'to' }]);
    await ensureIndexes(this.claims, [{ key: { owner: 1 }, name: 'owner' }]);
    await ensureIndexes(this.outboxJobs, [{ key: { seq: 1 }, name: 'seq' }]);
  }

  /**
   * Remembers the model, creates one index per indexed field of every class (`x_<field>` then
   * creation order, serving filters, sorts and unique checks), and re-derives every object's index
   * fields when the model's index signature differs from the one they were built with.
   */
  async applyModel(model: Model): Promise<void> {
    this.model = model;
    this.compiler = new SelectionCompiler(model, this.objects);
    this.modelApplied = true;
    const paths = new Set<string>();
    for (const classDef of model.classes.values()) {
      for (const field of objectIndexedFields(model, [classDef.name])) paths.add(fieldPath(field));
    }
    await ensureIndexes(
      this.objects,
      [...paths].map((path) => ({ key: { [path]: 1, seq: 1 }, name: path })),
    );
    const stored = await this.meta.findOne({ _id: 'model' });
    if (stored?.signature !== indexSignature(model)) await this.rebuildDerived(model);
  }

  async get(id: string, access: AccessFilter): Promise<StoredObject | null> {
    const doc = await this.objects.findOne(and([{ _id: id }, accessCondition(access)]));
    return doc === null ? null : fromDocument(doc);
  }

  async getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    const docs = await this.objects
      .find(and([{ _id: { $in: [...ids] } }, accessCondition(access)]))
      .toArray();
    return docs.map(fromDocument);
  }

  async list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]> {
    return [...(await this.page(plan, access)).rows];
  }

  async page(plan: ListPlan, access: AccessFilter): Promise<ListPage> {
    this.requireModel();
    const filter = await this.compiler.compile(plan, access);
    if (filter === null) return { rows: [], positions: [] };
    const skip = plan.after === undefined ? (plan.offset ?? plan.page * plan.size) : 0;
    const limit = plan.size + 1;
    const sort = plan.sort;
    if (sort?.key.kind === 'relationName') {
      const keyed = await this.keyedByRelationName(filter, sort.key.relation, sort.direction, access);
      return this.pageOfKeyed(keyed, sort.direction, compareText, plan.after, skip, limit);
    }
    const direction = sort?.direction === 'desc' ? -1 : 1;
    const field = sort === undefined ? undefined : indexedField(this.model, plan.className, sort.key.field);
    const hidden =
      field === undefined ? [] : await this.compiler.hiddenValues(plan.className, field.name, access);
    if (field !== undefined && sort !== undefined && hidden.length > 0) {
      // Values the reader may not see sort as empty: ordered here, the key depends on the reader.
      const path = fieldPath(field);
      const masked = new Set(hidden);
      const selected = await this.objects
        .find(filter, { projection: { _id: 1, seq: 1, [path]: 1 } })
        .toArray();
      const keyed = selected.map((doc) => ({
        id: doc._id,
        seq: doc.seq,
        key: masked.has(doc._id) ? null : sortKeyOf(doc[path], sort.direction),
      }));
      return this.pageOfKeyed(keyed, sort.direction, compareKeys, plan.after, skip, limit);
    }
    const path = field === undefined || sort === undefined ? undefined : fieldPath(field);
    const order: Record<string, 1 | -1> =
      path === undefined ? { seq: 1 } : { [path]: direction, seq: direction };
    const seek =
      plan.after === undefined
        ? null
        : path === undefined
          ? { seq: { $gt: plan.after.seq } }
          : seekCondition(path, field?.multiple === true, sort?.direction ?? 'asc', plan.after);
    const docs = await this.objects
      .find(and([filter, seek]))
      .sort(order)
      .skip(skip)
      .limit(limit)
      .toArray();
    return {
      rows: docs.map(fromDocument),
      positions: docs.map((doc) => ({
        key: path === undefined ? null : sortKeyOf(doc[path], sort?.direction ?? 'asc'),
        seq: doc.seq,
      })),
    };
  }

  /** One page of a selection ordered here (see {@link orderKeyed}): after the position, or from `skip`. */
  private async pageOfKeyed<K extends IndexKey>(
    keyed: readonly Keyed<K>[],
    direction: 'asc' | 'desc',
    compare: (a: K, b: K) => number,
    after: ListPosition | undefined,
    skip: number,
    limit: number,
  ): Promise<ListPage> {
    const ordered = orderKeyed(keyed, direction, compare);
    // A position of this order holds a key of this order's kind (the cursor is bound to the sort).
    const boundary = after as Pick<Keyed<K>, 'seq' | 'key'> | undefined;
    const firstAfter =
      boundary === undefined
        ? skip
        : ordered.findIndex((entry) => compareKeyed(entry, boundary, direction, compare) > 0);
    const start = firstAfter === -1 ? ordered.length : firstAfter;
    const slice = ordered.slice(start, start + limit);
    const rows = await this.objectsOf(slice.map((entry) => entry.id));
    const byId = new Map(slice.map((entry) => [entry.id, entry]));
    return {
      rows,
      positions: rows.map((row) => {
        const entry = byId.get(row.id);
        return { key: entry?.key ?? null, seq: entry?.seq ?? 0 };
      }),
    };
  }

  /**
   * The selection keyed by the smallest (ascending) or largest (descending) folded name of their
   * readable linked objects (null without one). Keyed here: the key lives on other documents.
   */
  private async keyedByRelationName(
    filter: ObjectFilter,
    relation: { key: string; direction: 'forward' | 'inverse' },
    direction: 'asc' | 'desc',
    access: AccessFilter,
  ): Promise<Keyed<string>[]> {
    const selected = await this.objects.find(filter, { projection: { _id: 1, seq: 1, lk: 1 } }).toArray();
    const linked = await this.linkedObjects(selected, relation, access);
    return selected.map((doc) => {
      const names = (linked.get(doc._id) ?? [])
        .map((other) => other.nk)
        .filter((nk): nk is string => nk !== null);
      names.sort(compareText);
      return { id: doc._id, seq: doc.seq, key: (direction === 'asc' ? names[0] : names.at(-1)) ?? null };
    });
  }

  /** The documents of `ids` as objects, in the order of `ids` (ids no longer stored left out). */
  private async objectsOf(ids: readonly string[]): Promise<StoredObject[]> {
    const docs = new Map(
      (await this.objects.find({ _id: { $in: [...ids] } }).toArray()).map((doc) => [doc._id, doc]),
    );
    return ids.flatMap((id) => {
      const doc = docs.get(id);
      return doc === undefined ? [] : [fromDocument(doc)];
    });
  }

  /**
   * For each object of `selected`, the readable objects on the other end of `relation`: its
   * targets (forward) or the objects linking to it (inverse), each with its ref and folded name.
   */
  private async linkedObjects(
    selected: readonly Pick<ObjectDoc, '_id' | 'lk'>[],
    relation: { key: string; direction: 'forward' | 'inverse' },
    access: AccessFilter,
  ): Promise<Map<string, Pick<ObjectDoc, '_id' | 'basic' | 'name' | 'nk'>[]>> {
    const result = new Map<string, Pick<ObjectDoc, '_id' | 'basic' | 'name' | 'nk'>[]>();
    const projection = { _id: 1, basic: 1, name: 1, nk: 1, lk: 1 };
    if (relation.direction === 'forward') {
      const targetsBySource = new Map(selected.map((doc) => [doc._id, targetsOf(doc.lk, relation.key)]));
      const all = [...new Set([...targetsBySource.values()].flat())];
      const readable = new Map(
        (
          await this.objects
            .find(and([{ _id: { $in: all } }, accessCondition(access)]), { projection })
            .toArray()
        ).map((doc) => [doc._id, doc]),
      );
      for (const [id, targets] of targetsBySource) {
        result.set(
          id,
          [...new Set(targets)].flatMap((target) => readable.get(target) ?? []),
        );
      }
      return result;
    }
    const ids = new Set(selected.map((doc) => doc._id));
    const sources = await this.objects
      .find(
        and([{ lk: { $in: [...ids].map((id) => linkEntry(relation.key, id)) } }, accessCondition(access)]),
        {
          projection,
        },
      )
      .sort({ seq: 1 })
      .toArray();
    for (const source of sources) {
      for (const target of new Set(targetsOf(source.lk, relation.key))) {
        if (ids.has(target)) result.set(target, [...(result.get(target) ?? []), source]);
      }
    }
    return result;
  }

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    this.requireModel();
    const filter = await this.compiler.compile(plan, access);
    if (filter === null) return [];
    if (plan.target.kind === 'field') {
      const field = indexedField(this.model, plan.className, plan.target.field);
      if (field === undefined) return [];
      const hidden = await this.compiler.hiddenValues(plan.className, field.name, access);
      const visible = hidden.length === 0 ? filter : and([filter, { _id: { $nin: hidden } }]);
      return orderBuckets(await this.fieldBuckets(visible, field), plan.order, (a, b) =>
        compareKeys(comparable(a.value as IndexKey), comparable(b.value as IndexKey)),
      ).map((bucket) => ({ value: fromIndexKey(field.type, bucket.value), count: bucket.count }));
    }
    const selected = await this.objects.find(filter, { projection: { _id: 1, lk: 1 } }).toArray();
    const linked = await this.linkedObjects(selected, plan.target.relation, access);
    const buckets = new Map<
      string,
      { value: string; name: string | null; basicClass: string; count: number }
    >();
    let without = 0;
    for (const doc of selected) {
      const others = linked.get(doc._id) ?? [];
      if (others.length === 0) without += 1;
      for (const other of others) {
        const bucket = buckets.get(other._id) ?? {
          value: other._id,
          name: other.name,
          basicClass: other.basic,
          count: 0,
        };
        bucket.count += 1;
        buckets.set(other._id, bucket);
      }
    }
    const byName = (a: { name: string | null; value: unknown }, b: { name: string | null; value: unknown }) =>
      (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) ||
      compareNullableText(a.name, b.name) ||
      compareText(String(a.value), String(b.value));
    const all: DistinctBucket[] = [...buckets.values()];
    if (without > 0) all.push({ value: null, name: null, count: without });
    return orderBuckets(all, plan.order, (a, b) =>
      byName({ name: a.name ?? null, value: a.value }, { name: b.name ?? null, value: b.value }),
    );
  }

  /**
   * Value buckets of one field over a selection, grouped by the server. Text keys are grouped by
   * their unfolded form (`d_`) and merged here when they differ only in case (an object holds each
   * folded key once, so no object is counted twice).
   */
  private async fieldBuckets(
    filter: ObjectFilter,
    field: NonNullable<ReturnType<typeof indexedField>>,
  ): Promise<{ value: unknown; count: number }[]> {
    // Numbers and booleans are keyed as they are; every other type by text (see `indexKey`).
    const textual = !NUMERIC_TYPES.has(field.type) && field.type !== 'BOOLEAN';
    const path = fieldPath(field, textual ? 'd' : 'x');
    const groups = (await this.objects
      .aggregate([
        { $match: and([filter, { [path]: { $exists: true } }]) },
        { $unwind: `$${path}` },
        { $group: { _id: `$${path}`, count: { $sum: 1 } } },
      ])
      .toArray()) as { _id: IndexKey; count: number }[];
    const merged = new Map<IndexKey, { value: IndexKey; count: number }>();
    for (const group of groups) {
      const key = comparable(group._id);
      const bucket = merged.get(key);
      if (bucket === undefined) merged.set(key, { value: group._id, count: group.count });
      else {
        bucket.count += group.count;
        if (compareKeys(group._id, bucket.value) < 0) bucket.value = group._id;
      }
    }
    return [...merged.values()];
  }

  async values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]> {
    this.requireModel();
    const filter = await this.compiler.compile(selection, access);
    if (filter === null) return [];
    const docs = await this.objects
      .find(filter, { projection: { _id: 1, basic: 1, vals: 1 } })
      .sort({ seq: 1 })
      .toArray();
    const hidden = new Set(await this.compiler.hiddenValues(selection.className, field, access));
    return docs.flatMap((doc) => {
      const values = JSON.parse(doc.vals) as Record<string, unknown>;
      return field in values && !hidden.has(doc._id)
        ? [{ value: values[field], objectId: doc._id, basicClass: doc.basic }]
        : [];
    });
  }

  /**
   * `total` by counting; per numeric field the objects with a value, the sum and the number of
   * values (the average is their quotient: FerretDB has no `$avg`). One accumulator per pipeline.
   */
  async aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult> {
    this.requireModel();
    const result = {
      total: 0,
      sum: {} as Record<string, number>,
      avg: {} as Record<string, number>,
      count: {} as Record<string, number>,
    };
    const filter = await this.compiler.compile(plan, access);
    if (filter === null) return result;
    result.total = await this.objects.countDocuments(filter);
    for (const name of new Set([...plan.sum, ...plan.avg, ...plan.count])) {
      const field = indexedField(this.model, plan.className, name);
      if (field === undefined || !NUMERIC_TYPES.has(field.type)) continue;
      const path = fieldPath(field);
      const hidden = await this.compiler.hiddenValues(plan.className, name, access);
      const withValue = and([
        filter,
        { [path]: { $exists: true } },
        hidden.length === 0 ? null : { _id: { $nin: hidden } },
      ]);
      const accumulate = async (accumulator: 1 | string): Promise<number> => {
        const [row] = (await this.objects
          .aggregate([
            { $match: withValue },
            { $unwind: `$${path}` },
            { $group: { _id: null, v: { $sum: accumulator } } },
          ])
          .toArray()) as { v: number }[];
        return row?.v ?? 0;
      };
      const count = await this.objects.countDocuments(withValue);
      const sum = count === 0 ? 0 : await accumulate(`$${path}`);
      if (plan.sum.includes(name)) result.sum[name] = sum;
      if (plan.count.includes(name)) result.count[name] = count;
      if (plan.avg.includes(name) && count > 0) result.avg[name] = sum / (await accumulate(1));
    }
    return result;
  }

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    const sources = await this.objects
      .find({ lt: id }, { projection: { _id: 1, lk: 1 } })
      .sort({ seq: 1 })
      .toArray();
    return sources.flatMap((source) =>
      source.lk
        .map(parseLinkEntry)
        .filter((link) => link.targetId === id)
        .map((link) => ({ sourceId: source._id, relationKey: link.relationKey })),
    );
  }

  async refsOf(ids: readonly string[], access: AccessFilter): Promise<ObjectRef[]> {
    if (ids.length === 0) return [];
    const docs = await this.objects
      .find(and([{ _id: { $in: [...ids] } }, accessCondition(access)]), {
        projection: { _id: 1, basic: 1, name: 1 },
      })
      .toArray();
    return docs.map((doc) => ({ id: doc._id, basicClass: doc.basic, name: doc.name }));
  }

  /**
   * Ordered by target, then by linking object in creation order and link position (as `linksTo`).
   * With a bound, one query per (target, relation) on the `lk` index, at most `limit` linkers each.
   */
  async incomingRefs(
    ids: readonly string[],
    access: AccessFilter,
    bound?: IncomingBound,
  ): Promise<IncomingRef[]> {
    if (ids.length === 0) return [];
    const targets = new Set(ids);
    const projection = { _id: 1, basic: 1, name: 1, lk: 1 };
    const refsTo = (target: string, sources: readonly ObjectDoc[], relationKey?: string) =>
      sources.flatMap((source) =>
        source.lk
          .map(parseLinkEntry)
          .filter(
            (link) =>
              link.targetId === target && (relationKey === undefined || link.relationKey === relationKey),
          )
          .map((link) => ({
            targetId: target,
            relationKey: link.relationKey,
            id: source._id,
            basicClass: source.basic,
            name: source.name,
          })),
      );
    if (bound !== undefined) {
      const perTarget = await Promise.all(
        [...targets].map(async (target) => {
          const byRelation = await Promise.all(
            bound.relationKeys.map(async (relationKey) => {
              const sources = await this.objects
                .find(and([{ lk: linkEntry(relationKey, target) }, accessCondition(access)]), {
                  projection,
                })
                .sort({ seq: 1 })
                .limit(bound.limit)
                .toArray();
              return refsTo(target, sources, relationKey).slice(0, bound.limit);
            }),
          );
          return byRelation.flat();
        }),
      );
      return perTarget.flat();
    }
    const sources = await this.objects
      .find(and([{ lt: { $in: [...targets] } }, accessCondition(access)]), { projection })
      .sort({ seq: 1 })
      .toArray();
    return [...targets].flatMap((target) => refsTo(target, sources));
  }

  /** Per class combination of the objects, one walk of each derived field's source paths (derived.ts). */
  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    const hidden = new Map<string, Set<string>>();
    if (ids.length === 0 || !restricts(access)) return hidden;
    this.requireModel();
    const docs = await this.objects
      .find({ _id: { $in: [...ids] } }, { projection: { _id: 1, classes: 1 } })
      .toArray();
    const byClasses = new Map<string, { classes: string[]; ids: string[] }>();
    for (const doc of docs) {
      const key = JSON.stringify(doc.classes);
      const group = byClasses.get(key) ?? { classes: doc.classes, ids: [] };
      group.ids.push(doc._id);
      byClasses.set(key, group);
    }
    for (const group of byClasses.values()) {
      for (const [field, paths] of derivedSourcesOf(this.model, group.classes)) {
        for (const id of await hiddenAmong(this.objects, group.ids, paths, access)) {
          hidden.set(id, (hidden.get(id) ?? new Set<string>()).add(field));
        }
      }
    }
    return hidden;
  }

  /**
   * Applies the batch. With transactions (a replica set or sharded cluster) the whole batch is one
   * transaction, retried by the driver on transient conflicts. Without them (a standalone server,
   * FerretDB) the batch is first validated completely - every link target exists, no unique value
   * is shared - so a refused batch writes nothing; then applied in the port's order with writes that
   * are each atomic on one document and idempotent (README.md lists what a crash midway leaves).
   */
  async write(batch: WriteBatch): Promise<void> {
    this.requireModel();
    const held = await this.claimVersions(batch.expect ?? []);
    try {
      if (!this.transactions) {
        await this.applyBatch(batch, {});
        return;
      }
      const session = this.options.client.startSession();
      try {
        await session.withTransaction(() => this.applyBatch(batch, { session }));
      } finally {
        await session.endSession();
      }
    } finally {
      if (held.length > 0) await this.versionClaims.deleteMany({ _id: { $in: held } });
    }
  }

  async redirectOf(id: string): Promise<string | null> {
    const seen = new Set<string>([id]);
    let current = (await this.redirects.findOne({ _id: id }))?.to;
    if (current === undefined) return null;
    for (
      let further = (await this.redirects.findOne({ _id: current }))?.to;
      further !== undefined && !seen.has(further);
    ) {
      seen.add(current);
      current = further;
      further = (await this.redirects.findOne({ _id: current }))?.to;
    }
    return (await this.objects.countDocuments({ _id: current }, { limit: 1 })) === 0 ? null : current;
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    const doc = await this.objects.findOne({ _id: id }, { projection: { acl: 1 } });
    return doc === null ? [] : aclRowsOfDocument(doc);
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.holdingsWhere({ holder: holderId });
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.holdingsWhere({ ac: acId });
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    const withRows = await this.objects
      .find({ 'ac.0': { $exists: true } }, { projection: { acl: 1 } })
      .toArray();
    const nodeIds = new Set(withRows.flatMap((doc) => doc.acl.map((row) => row.n)));
    const holdings = await this.holdings.find({}, { projection: { steps: 1 } }).toArray();
    const stepIds = new Set(holdings.flatMap((holding) => holding.steps));
    return { nodeIds: [...nodeIds].sort(compareText), stepIds: [...stepIds].sort(compareText) };
  }

  async scan(afterId: string | null, limit: number): Promise<StoredObject[]> {
    const docs = await this.objects
      .find({ _id: { $gt: afterId ?? '' } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(fromDocument);
  }

  async outbox(limit: number): Promise<NewJob[]> {
    const docs = await this.outboxJobs.find({}).sort({ seq: 1 }).limit(limit).toArray();
    return docs.map((doc) => JSON.parse(doc.job) as NewJob);
  }

  async removeFromOutbox(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.outboxJobs.deleteMany({ _id: { $in: [...ids] } });
  }

  /** The tenant's database. */
  get databaseName(): string {
    return this.db.databaseName;
  }

  /** Drops the tenant's database (tenant deletion, tests). */
  async drop(): Promise<void> {
    await this.db.dropDatabase();
  }

  /** The client is the process's; closing a tenant store releases nothing. */
  async close(): Promise<void> {}

  // ---- writes -------------------------------------------------------------------------------

  private async applyBatch(batch: WriteBatch, session: Session): Promise<void> {
    const expected = new Map((batch.expect ?? []).map((entry) => [entry.id, entry.modifiedAt]));
    await this.checkExpectations(expected, session);
    // Objects the batch expects are put first, so a conditional put that fails applies nothing.
    const puts = [...(batch.put ?? [])].sort(
      (a, b) => (expected.has(a.id) ? 0 : 1) - (expected.has(b.id) ? 0 : 1),
    );
    const deletes = new Set(batch.delete ?? []);
    await this.checkLinks(puts, session);
    const claims = await this.checkUnique(puts, deletes, session);
    await this.claimUnique(claims, new Set([...puts.map((object) => object.id), ...deletes]), session);
    await this.putObjects(puts, expected, session);
    for (const redirect of batch.redirects ?? []) {
      // An id already redirected to `from` now leads to `to`, so chains follow merges.
      await this.redirects.updateMany({ to: redirect.from }, { $set: { to: redirect.to } }, session);
      await this.redirects.updateOne(
        { _id: redirect.from },
        { $set: { to: redirect.to } },
        { ...session, upsert: true },
      );
    }
    for (const id of deletes) await this.deleteObject(id, session);
    await this.releaseClaims(puts, claims, deletes, session);
    for (const entry of batch.aclRows ?? []) {
      const acl: AclEntry[] = entry.rows.map((row) => ({ a: row.acId, n: row.nodeId, d: row.definition }));
      await this.objects.updateOne(
        { _id: entry.objectId },
        { $set: { acl, ac: [...new Set(acl.map((row) => row.a))] }, $inc: { v: 1 } },
        session,
      );
    }
    for (const entry of batch.holdings ?? []) {
      await this.holdings.deleteMany({ anchor: entry.anchorId, def: entry.definition }, session);
      if (entry.rows.length === 0) continue;
      await this.holdings.insertMany(
        entry.rows.map((row, pos) => ({
          anchor: row.anchorId,
          def: row.definition,
          holder: row.holderId,
          ac: row.acId,
          steps: [...row.stepIds],
          pos,
        })),
        session,
      );
    }
    await this.appendEvents(batch.events ?? [], session);
    const jobs = [...new Map((batch.jobs ?? []).map((job) => [job.id, job])).values()];
    if (jobs.length > 0) {
      const queued = new Set(
        (
          await this.outboxJobs
            .find({ _id: { $in: jobs.map((job) => job.id) } }, { ...session, projection: { _id: 1 } })
            .toArray()
        ).map((doc) => doc._id),
      );
      const fresh = jobs.filter((job) => !queued.has(job.id));
      if (fresh.length > 0) {
        const last = await this.nextNumbers('jobs', fresh.length, session);
        await this.outboxJobs.insertMany(
          fresh.map((job, index) => ({
            _id: job.id,
            seq: last - fresh.length + 1 + index,
            job: JSON.stringify(job),
          })),
          session,
        );
      }
    }
  }

  /**
   * Takes the version claims of the batch's expectations (see `VersionClaimDoc`) and resolves their
   * ids; WriteConflictError (releasing those taken) when another writer holds one. A claim older
   * than `CLAIM_GRACE_MS` was left behind by a writer that died and is taken over. Held only while
   * the batch is applied: `write` releases them, and the object then no longer carries the version
   * (a writer claiming it afterwards fails `checkExpectations`).
   */
  private async claimVersions(expect: readonly WriteExpectation[]): Promise<string[]> {
    const held: string[] = [];
    const claims = new Map(expect.map((entry) => [`${entry.id}\u0000${entry.modifiedAt ?? ''}`, entry.id]));
    try {
      for (const [id, objectId] of claims) {
        for (let attempt = 0; ; attempt += 1) {
          try {
            await this.versionClaims.insertOne({ _id: id, at: new Date() });
            held.push(id);
            break;
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
            const claim = await this.versionClaims.findOne({ _id: id });
            const stale = claim !== null && claim.at.getTime() < Date.now() - CLAIM_GRACE_MS;
            if (attempt > 0 || (claim !== null && !stale)) {
              throw new WriteConflictError(objectId);
            }
            if (claim !== null) await this.versionClaims.deleteOne({ _id: id, at: claim.at });
          }
        }
      }
      return held;
    } catch (error) {
      if (held.length > 0) await this.versionClaims.deleteMany({ _id: { $in: held } });
      throw error;
    }
  }

  /** WriteConflictError when an expected object no longer carries the `modifiedAt` its writer read. */
  private async checkExpectations(
    expected: ReadonlyMap<string, string | null>,
    session: Session,
  ): Promise<void> {
    if (expected.size === 0) return;
    const current = new Map(
      (
        await this.objects
          .find({ _id: { $in: [...expected.keys()] } }, { ...session, projection: { _id: 1, modifiedAt: 1 } })
          .toArray()
      ).map((doc) => [doc._id, doc.modifiedAt]),
    );
    for (const [id, modifiedAt] of expected) {
      if ((current.get(id) ?? null) !== modifiedAt) throw new WriteConflictError(id);
    }
  }

  /** NotFoundError when a put links to an object that is neither stored nor put by the batch. */
  private async checkLinks(puts: readonly StoredObject[], session: Session): Promise<void> {
    const putIds = new Set(puts.map((object) => object.id));
    const targets = new Set(
      puts.flatMap((object) => Object.values(object.links).flat()).filter((id) => !putIds.has(id)),
    );
    if (targets.size === 0) return;
    const found = new Set(
      (
        await this.objects
          .find({ _id: { $in: [...targets] } }, { ...session, projection: { _id: 1 } })
          .toArray()
      ).map((doc) => doc._id),
    );
    const missing = [...targets].find((id) => !found.has(id));
    if (missing !== undefined) throw new NotFoundError(`The linked object ${missing} does not exist.`);
  }

  /**
   * ConflictError when a put's `unique` field value would be shared within the field's declaring
   * class (subclasses included), with a stored object that stays or another put of the batch.
   * Resolves the claims the puts need (claim id -> object id).
   */
  private async checkUnique(
    puts: readonly StoredObject[],
    deletes: ReadonlySet<string>,
    session: Session,
  ): Promise<Map<string, Claim>> {
    const replaced = [...new Set([...puts.map((object) => object.id), ...deletes])];
    const claims = new Map<string, Claim>();
    for (const object of puts) {
      for (const field of objectIndexedFields(this.model, object.classes)) {
        if (!field.unique) continue;
        const keys = indexKeysOf(field, object.values[field.name]).map(comparable);
        for (const key of keys) {
          const id = `${fieldPath(field)}\u0000${JSON.stringify(key)}`;
          const claimed = claims.get(id);
          if (claimed !== undefined && claimed.owner !== object.id) refuseUnique(field.name);
          claims.set(id, { owner: object.id, path: fieldPath(field), key, fieldName: field.name });
        }
        if (keys.length === 0) continue;
        const clash = await this.objects.countDocuments(
          { classes: field.declaredOn, [fieldPath(field)]: { $in: keys }, _id: { $nin: replaced } },
          { ...session, limit: 1 },
        );
        if (clash > 0) refuseUnique(field.name);
      }
    }
    return claims;
  }

  /**
   * Takes the claims of the batch's unique values (see `ClaimDoc`), so that two concurrent batches
   * never both store one value, with or without transactions. A claim held by another object is
   * taken over only when that object is replaced or deleted by this batch, or when it does not hold
   * the value and the claim is older than `CLAIM_GRACE_MS` (left behind); otherwise ConflictError.
   */
  private async claimUnique(
    claims: ReadonlyMap<string, Claim>,
    released: ReadonlySet<string>,
    session: Session,
  ): Promise<void> {
    for (const [id, claim] of claims) {
      for (let attempt = 0; ; attempt += 1) {
        if (attempt === 3) refuseUnique(claim.fieldName);
        const held = await this.claims.findOne({ _id: id }, session);
        if (held === null) {
          try {
            await this.claims.insertOne({ _id: id, owner: claim.owner, at: new Date() }, session);
            break;
          } catch (error) {
            if (isDuplicateKey(error)) continue;
            throw error;
          }
        }
        if (held.owner === claim.owner) break;
        const stale =
          released.has(held.owner) ||
          (held.at.getTime() < Date.now() - CLAIM_GRACE_MS &&
            (await this.objects.countDocuments(
              { _id: held.owner, [claim.path]: claim.key },
              { ...session, limit: 1 },
            )) === 0);
        if (!stale) refuseUnique(claim.fieldName);
        const taken = await this.claims.updateOne(
          { _id: id, owner: held.owner },
          { $set: { owner: claim.owner, at: new Date() } },
          session,
        );
        if (taken.matchedCount === 1) break;
      }
    }
  }

  /** Drops the claims of values the batch's objects no longer hold (changed or deleted). */
  private async releaseClaims(
    puts: readonly StoredObject[],
    claims: ReadonlyMap<string, Claim>,
    deletes: ReadonlySet<string>,
    session: Session,
  ): Promise<void> {
    const kept = new Map<string, string[]>();
    for (const [id, claim] of claims) kept.set(claim.owner, [...(kept.get(claim.owner) ?? []), id]);
    for (const object of puts) {
      await this.claims.deleteMany({ owner: object.id, _id: { $nin: kept.get(object.id) ?? [] } }, session);
    }
    if (deletes.size > 0) await this.claims.deleteMany({ owner: { $in: [...deletes] } }, session);
  }

  /**
   * Inserts new objects (with a creation number from the tenant's counter) and replaces stored ones
   * whole, keeping their creation number and ACL rows. A replacement names the version it read;
   * when another writer changed the document meanwhile, it is read and replaced again.
   */
  private async putObjects(
    puts: readonly StoredObject[],
    expected: ReadonlyMap<string, string | null>,
    session: Session,
  ): Promise<void> {
    let pending = [...new Map(puts.map((object) => [object.id, object])).values()];
    while (pending.length > 0) {
      const stored = new Map(
        (
          await this.objects
            .find(
              { _id: { $in: pending.map((object) => object.id) } },
              { ...session, projection: { seq: 1, v: 1, acl: 1 } },
            )
            .toArray()
        ).map((doc) => [doc._id, doc]),
      );
      const fresh = pending.filter((object) => !stored.has(object.id));
      const last = fresh.length === 0 ? 0 : await this.nextNumbers('objects', fresh.length, session);
      const retry: StoredObject[] = [];
      for (const object of pending) {
        const kept = stored.get(object.id);
        if (kept === undefined) {
          const seq = last - fresh.length + 1 + fresh.indexOf(object);
          try {
            await this.objects.insertOne(toDocument(this.model, object, { seq, v: 0, acl: [] }), session);
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
            // Expected absent, created meanwhile by a writer that expected nothing.
            if (expected.has(object.id)) throw new WriteConflictError(object.id);
            retry.push(object);
          }
          continue;
        }
        const doc = toDocument(this.model, object, { seq: kept.seq, v: kept.v + 1, acl: kept.acl });
        const modifiedAt = expected.get(object.id);
        if (modifiedAt === null) throw new WriteConflictError(object.id);
        const replaced = await this.objects.replaceOne(
          { _id: object.id, v: kept.v, ...(modifiedAt === undefined ? {} : { modifiedAt }) },
          doc,
          session,
        );
        if (replaced.matchedCount > 0) continue;
        if (modifiedAt !== undefined) {
          const now = await this.objects.findOne(
            { _id: object.id },
            { ...session, projection: { modifiedAt: 1 } },
          );
          if (now?.modifiedAt !== modifiedAt) throw new WriteConflictError(object.id);
        }
        retry.push(object);
      }
      pending = retry;
    }
  }

  /**
   * Removes the object and what points to it: the links of other objects to it (no link ever
   * dangles) and the redirects leading to it. Its ACL rows live on its document and go with it.
   */
  private async deleteObject(id: string, session: Session): Promise<void> {
    await this.objects.deleteOne({ _id: id }, session);
    const linkers = await this.objects.find({ lt: id }, { ...session, projection: { lk: 1 } }).toArray();
    for (const linker of linkers) {
      const gone = linker.lk.filter((entry) => parseLinkEntry(entry).targetId === id);
      await this.objects.updateOne(
        { _id: linker._id },
        { $pullAll: { lt: [id], lk: gone }, $inc: { v: 1 } },
        session,
      );
    }
    await this.redirects.deleteMany({ to: id }, session);
  }

  /**
   * Appends events at the positions right after the newest event, in order. An event's `_id` is its
   * position and the server keeps `_id` unique, so inserting at `newest + 1` is the claim on that
   * position: of two writers that read the same newest event, one inserts and the other gets a
   * duplicate key for the events not yet inserted (an ordered insert stops there), re-reads the
   * newest and appends them after it. So an event is inserted only once the one before it exists,
   * on every server and without a counter: a reader that has read up to position n has seen every
   * event up to n, and nothing is inserted below n later. (Reserving numbers with a counter would
   * let a reader see n + 1 before a slower writer inserted n, and pass n for good.) In a
   * transaction, a clash is the transaction's conflict and the whole batch is retried.
   */
  private async appendEvents(events: readonly NewChangeEvent[], session: Session): Promise<void> {
    let pending = events;
    while (pending.length > 0) {
      const newest = await this.newestEventPosition(session);
      try {
        await this.eventDocs.insertMany(
          pending.map((event, index) => ({
            _id: newest + 1 + index,
            type: event.type,
            objectId: event.objectId,
            classes: [...event.classes],
            ...(event.loserId === undefined ? {} : { loserId: event.loserId }),
            at: event.at,
            ...(event.changed === undefined ? {} : { changed: [...event.changed] }),
          })),
          { ...session, ordered: true },
        );
        return;
      } catch (error) {
        if (session.session !== undefined || !isDuplicateKey(error)) throw error;
        pending = pending.slice(error instanceof MongoBulkWriteError ? error.insertedCount : 0);
      }
    }
  }

  /** The position of the newest event, 0 when the log is empty (one lookup on the `_id` index). */
  private async newestEventPosition(session: Session): Promise<number> {
    const newest = await this.eventDocs.findOne(
      {},
      { ...session, sort: { _id: -1 }, projection: { _id: 1 } },
    );
    return newest?._id ?? 0;
  }

  /** Reserves `count` numbers of a counter; resolves the last one (the first is `last - count + 1`). */
  private async nextNumbers(counter: 'objects' | 'jobs', count: number, session: Session): Promise<number> {
    for (;;) {
      try {
        const doc = await this.meta.findOneAndUpdate(
          { _id: counter },
          { $inc: { n: count } },
          { ...session, upsert: true, returnDocument: 'after' },
        );
        return doc?.n ?? count;
      } catch (error) {
        // Two first upserts of the counter: one inserted it; the other increments it now.
        if (!isDuplicateKey(error) || session.session !== undefined) throw error;
      }
    }
  }

  /**
   * Re-derives the index fields of every object for `model` and records its signature. Works in id
   * order, `rebuildBatchSize` objects at a time; each object is replaced on its own (with its
   * version, so a concurrent write wins and is re-derived by itself). The signature is forgotten
   * first and recorded last, so an interrupted rebuild is redone by the next `applyModel`; a newer
   * rebuild supersedes this one, which then stops.
   */
  private async rebuildDerived(model: Model): Promise<number> {
    const generation = ++this.rebuildGeneration;
    await this.meta.deleteOne({ _id: 'model' });
    let count = 0;
    for (let after = ''; ;) {
      if (generation !== this.rebuildGeneration) return count;
      const docs = await this.objects
        .find({ _id: { $gt: after } })
        .sort({ _id: 1 })
        .limit(this.rebuildBatchSize)
        .toArray();
      if (docs.length === 0) break;
      const writes = docs.map((doc) => ({
        replaceOne: {
          filter: { _id: doc._id, v: doc.v },
          replacement: toDocument(model, fromDocument(doc), { seq: doc.seq, v: doc.v + 1, acl: doc.acl }),
        },
      }));
      await this.objects.bulkWrite(writes, { ordered: false });
      count += docs.length;
      after = docs.at(-1)?._id ?? after;
    }
    if (generation !== this.rebuildGeneration) return count;
    await this.meta.updateOne(
      { _id: 'model' },
      { $set: { signature: indexSignature(model) } },
      { upsert: true },
    );
    return count;
  }

  private async holdingsWhere(filter: Partial<HoldingDoc>): Promise<Holding[]> {
    const docs = await this.holdings.find(filter).sort({ anchor: 1, def: 1, holder: 1, pos: 1 }).toArray();
    return docs.map((doc) => ({
      holderId: doc.holder,
      acId: doc.ac,
      definition: doc.def,
      anchorId: doc.anchor,
      stepIds: doc.steps,
    }));
  }

  private requireModel(): void {
    if (!this.modelApplied) throw new Error('applyModel must be called before queries and writes.');
  }
}

/**
 * Creates the indexes of `specs` a collection lacks (by name). Only the missing ones: FerretDB v1
 * breaks the connection on a createIndexes naming an existing index of a collection with documents.
 */
async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  specs: readonly { key: Record<string, 1>; name: string }[],
): Promise<void> {
  const listed = await collection
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      // MongoDB lists no indexes of a collection that does not exist yet: it has none.
      if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
      throw error;
    });
  const existing = new Set(listed.map((index) => String(index['name'])));
  const missing = specs.filter((spec) => !existing.has(spec.name));
  if (missing.length > 0) await collection.createIndexes(missing.map((spec) => ({ ...spec })));
}

/** A unique value a put needs: its owner, and the field path and folded key it is held under. */
interface Claim {
  readonly owner: string;
  readonly path: string;
  readonly key: IndexKey;
  readonly fieldName: string;
}

function refuseUnique(fieldName: string): never {
  throw new ConflictError(`Another object already has this value of the unique field ${fieldName}.`, {
    field: fieldName,
  });
}

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** An object of a selection ordered here, with its creation sequence and sort key (null: none). */
interface Keyed<K> {
  readonly id: string;
  readonly seq: number;
  readonly key: K | null;
}

/**
 * Where `a` stands relative to `b` in the list order: objects without a key first ascending (last
 * descending), then by key, ties by creation order in the sort's direction.
 */
function compareKeyed<K>(
  a: Pick<Keyed<K>, 'seq' | 'key'>,
  b: Pick<Keyed<K>, 'seq' | 'key'>,
  direction: 'asc' | 'desc',
  compare: (a: K, b: K) => number,
): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a.key === null || b.key === null) {
    if (a.key !== b.key) return a.key === null ? -sign : sign;
  } else {
    const byKey = compare(a.key, b.key);
    if (byKey !== 0) return sign * byKey;
  }
  return sign * (a.seq - b.seq);
}

/** The entries in the list order (see {@link compareKeyed}). */
function orderKeyed<K>(
  keyed: readonly Keyed<K>[],
  direction: 'asc' | 'desc',
  compare: (a: K, b: K) => number,
): Keyed<K>[] {
  return [...keyed].sort((a, b) => compareKeyed(a, b, direction, compare));
}

/**
 * The sort key of a document's field keys as the server orders arrays: the smallest ascending, the
 * largest descending; null when the field has no value.
 */
function sortKeyOf(keys: readonly IndexKey[] | undefined, direction: 'asc' | 'desc'): IndexKey | null {
  if (keys === undefined || keys.length === 0) return null;
  const sorted = [...keys].sort(compareKeys);
  return (direction === 'asc' ? sorted[0] : sorted.at(-1)) ?? null;
}

/**
 * The documents after `position` in the order `{[path]: direction, seq: direction}` (keyset paging).
 * A row's key is its smallest value ascending, its largest descending; a document without the field
 * comes first ascending, last descending. On a single-valued field ascending, the key bound is a
 * plain range of the field's index, `(path, seq)`; the ties at the boundary are excluded by `$nor`.
 */
function seekCondition(
  path: string,
  multiple: boolean,
  direction: 'asc' | 'desc',
  position: ListPosition,
): ObjectFilter {
  // Built as plain documents: the driver's filter type cannot follow a computed `x_` key.
  const missing: Document = { [path]: { $exists: false } };
  const asc = direction === 'asc';
  if (position.key === null) {
    const seek: Document = asc
      ? { $nor: [{ ...missing, seq: { $lte: position.seq } }] }
      : { ...missing, seq: { $lt: position.seq } };
    return seek as ObjectFilter;
  }
  const key = position.key;
  const tiesUpTo = { [path]: key, seq: asc ? { $lte: position.seq } : { $gte: position.seq } };
  // Descending (largest value <= key, or none) and multi-valued ascending (smallest value >= key):
  // no value of the document lies beyond the key on the wrong side.
  const keyBound: Document = !asc
    ? { [path]: { $not: { $gt: key } } }
    : multiple
      ? { $and: [{ [path]: { $exists: true } }, { [path]: { $not: { $lt: key } } }] }
      : { [path]: { $gte: key } };
  const seek: Document = { $and: [keyBound, { $nor: [tiesUpTo] }] };
  return seek as ObjectFilter;
}

/** Numbers before strings; numbers numerically, strings in binary order. */
function compareKeys(a: IndexKey, b: IndexKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareText(a, b);
}

/** Null last; others case-insensitively, then as they are. */
function compareNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareText(fold(a), fold(b)) || compareText(a, b);
}

/** Buckets in the plan's order: by `byValue`, or by count (ascending or descending) then `byValue`. */
function orderBuckets<T extends { count: number }>(
  buckets: T[],
  order: DistinctPlan['order'],
  byValue: (a: T, b: T) => number,
): T[] {
  const sign = order === 'countDesc' ? -1 : 1;
  return [...buckets].sort((a, b) => (order === 'value' ? 0 : sign * (a.count - b.count)) || byValue(a, b));
}
