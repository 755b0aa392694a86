/**
 * The MongoDB tenant store: one database per tenant (isolation by construction), implementing the
 * `TenantStore` port of `@odp/core` over the official driver. This class wires the parts, one
 * concern each: collections and indexes (collections.ts), list reads (list-reads.ts, keyed-order.ts),
 * reads over a selection (summary-reads.ts), names (names.ts), the batch writer (batch-writer.ts) and
 * its claims (claims.ts), access rows (access-rows.ts), events (events.ts), the outbox (outbox.ts)
 * and rebuilds for a changed model (rebuild.ts). See README.md for the collections and
 * for what a write guarantees on which server.
 *
 * Uses only what FerretDB v1 serves as well as MongoDB 7+: find, countDocuments, updates, bulk
 * writes, $unwind/$group/$sum pipelines (one accumulator per pipeline). Never $lookup, $facet, $avg,
 * text indexes, change streams; transactions only when the server has them (capability detection).
 */
import { randomBytes } from 'node:crypto';
import { indexSignature } from '@odp/core';
import type {
  AccessFilter,
  AclRow,
  AggregatePlan,
  AggregateResult,
  AppliedWrite,
  DistinctBucket,
  DistinctPlan,
  EventLog,
  Holding,
  IncomingBound,
  IncomingRef,
  ListPage,
  ListPlan,
  Model,
  NewJob,
  ObjectRef,
  Selection,
  StoredObject,
  TenantStore,
  WriteBatch,
} from '@odp/core';
import type { Db, MongoClient } from 'mongodb';
import { AccessRows } from './access-rows.js';
import { AppliedModel } from './applied-model.js';
import { BatchWriter } from './batch-writer.js';
import { UniqueClaims } from './claims.js';
import { TenantCollections, ensureIndexes } from './collections.js';
import { isDuplicateKey } from '../server-errors.js';
import type { MetaDoc } from './collections.js';
import { fieldPath, fromDocument, objectIndexedFields } from './documents.js';
import { TenantEvents } from './events.js';
import { ListReads } from './list-reads.js';
import { TenantNames } from './names.js';
import { MongoIdempotencyRecords } from './idempotency.js';
import { TenantOutbox } from './outbox.js';
import { accessCondition, and } from './query.js';
import { DerivedRebuild } from './rebuild.js';
import { MongoSearchIndex } from './search.js';
import { SummaryReads } from './summary-reads.js';

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
  /** The change events `write` appends (events.ts). */
  readonly events: EventLog;
  /** The records of keyed requests, which `write` stores with the batch they describe (idempotency.ts). */
  readonly idempotency: MongoIdempotencyRecords;
  private readonly c: TenantCollections;
  private readonly model: AppliedModel;
  private readonly lists: ListReads;
  private readonly summaries: SummaryReads;
  private readonly names: TenantNames;
  private readonly accessRows: AccessRows;
  private readonly outboxJobs: TenantOutbox;
  private readonly writer: BatchWriter;
  private readonly rebuilds: DerivedRebuild;

  constructor(
    db: Db,
    /** The server runs multi-document transactions: each batch is then one (see `write`). */
    transactions: boolean,
    options: MongoTenantStoreOptions,
    secret: Buffer,
  ) {
    const c = new TenantCollections(db);
    this.c = c;
    this.model = new AppliedModel(c.objects);
    this.lists = new ListReads(c, this.model);
    this.summaries = new SummaryReads(c, this.model, this.lists);
    this.names = new TenantNames(c);
    this.accessRows = new AccessRows(c, this.model);
    this.outboxJobs = new TenantOutbox(c);
    const events = new TenantEvents(c);
    this.events = events.events;
    const claims = new UniqueClaims(c, this.model);
    this.idempotency = new MongoIdempotencyRecords(c.idempotency);
    this.writer = new BatchWriter(
      c,
      this.model,
      options.client,
      transactions,
      claims,
      this.accessRows,
      events,
      this.outboxJobs,
      this.idempotency,
    );
    this.rebuilds = new DerivedRebuild(c, Math.max(1, Math.trunc(options.rebuildBatchSize ?? 500)));
    this.search = new MongoSearchIndex({
      objects: c.objects,
      pages: c.searchPages,
      secret,
      cursorTtlMs: options.searchCursorTtlMs ?? 15 * 60_000,
      rebuild: (model) => this.rebuilds.rebuild(model),
    });
  }

  /** The indexes every tenant database has, whatever its model. Idempotent. */
  async createFixedIndexes(): Promise<void> {
    await this.c.createFixedIndexes();
  }

  /**
   * Remembers the model, creates one index per indexed field of every class (`x_<field>` then
   * creation order, serving filters, sorts and unique checks), and re-derives every object's index
   * fields when the model's index signature differs from the one they were built with.
   */
  async applyModel(model: Model): Promise<void> {
    this.model.use(model);
    const paths = new Set<string>();
    for (const classDef of model.classes.values()) {
      for (const field of objectIndexedFields(model, [classDef.name])) paths.add(fieldPath(field));
    }
    await ensureIndexes(
      this.c.objects,
      [...paths].map((path) => ({ key: { [path]: 1, seq: 1 }, name: path })),
    );
    const stored = await this.c.meta.findOne({ _id: 'model' });
    if (stored?.signature !== indexSignature(model)) await this.rebuilds.rebuild(model);
  }

  async get(id: string, access: AccessFilter): Promise<StoredObject | null> {
    const doc = await this.c.objects.findOne(and([{ _id: id }, accessCondition(access)]));
    return doc === null ? null : fromDocument(doc);
  }

  async getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]> {
    if (ids.length === 0) return [];
    const docs = await this.c.objects
      .find(and([{ _id: { $in: [...ids] } }, accessCondition(access)]))
      .toArray();
    return docs.map(fromDocument);
  }

  async list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]> {
    return [...(await this.page(plan, access)).rows];
  }

  async page(plan: ListPlan, access: AccessFilter): Promise<ListPage> {
    return this.lists.page(plan, access);
  }

  async distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]> {
    return this.summaries.distinct(plan, access);
  }

  async values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]> {
    return this.summaries.values(selection, field, access);
  }

  async aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult> {
    return this.summaries.aggregate(plan, access);
  }

  async linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]> {
    return this.names.linksTo(id);
  }

  async refsOf(ids: readonly string[], access: AccessFilter): Promise<ObjectRef[]> {
    return this.names.refsOf(ids, access);
  }

  async incomingRefs(
    ids: readonly string[],
    access: AccessFilter,
    bound?: IncomingBound,
  ): Promise<IncomingRef[]> {
    return this.names.incomingRefs(ids, access, bound);
  }

  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    return this.accessRows.hiddenDerivedFields(ids, access);
  }

  /** Applies the batch (batch-writer.ts). */
  async write(batch: WriteBatch): Promise<void> {
    this.model.require();
    await this.writer.write(batch);
  }

  /** Each batch commits by itself here (its own transaction, or its ordered writes): applied is committed. */
  async applyWrite(batch: WriteBatch): Promise<AppliedWrite> {
    await this.write(batch);
    return { committed: Promise.resolve() };
  }

  async redirectOf(id: string): Promise<string | null> {
    const seen = new Set<string>([id]);
    let current = (await this.c.redirects.findOne({ _id: id }))?.to;
    if (current === undefined) return null;
    for (
      let further = (await this.c.redirects.findOne({ _id: current }))?.to;
      further !== undefined && !seen.has(further);
    ) {
      seen.add(current);
      current = further;
      further = (await this.c.redirects.findOne({ _id: current }))?.to;
    }
    return (await this.c.objects.countDocuments({ _id: current }, { limit: 1 })) === 0 ? null : current;
  }

  async scan(afterId: string | null, limit: number): Promise<StoredObject[]> {
    const docs = await this.c.objects
      .find({ _id: { $gt: afterId ?? '' } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(fromDocument);
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    return this.accessRows.aclRowsOf(id);
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.accessRows.holdingsOf(holderId);
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.accessRows.holdingsOfAcId(acId);
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    return this.accessRows.storedAclIds();
  }

  async outbox(limit: number): Promise<NewJob[]> {
    return this.outboxJobs.read(limit);
  }

  async removeFromOutbox(ids: readonly string[]): Promise<void> {
    await this.outboxJobs.remove(ids);
  }

  /** The tenant's database. */
  get databaseName(): string {
    return this.c.db.databaseName;
  }

  /** Drops the tenant's database (tenant deletion, tests). */
  async drop(): Promise<void> {
    await this.c.db.dropDatabase();
  }

  /** The client is the process's; closing a tenant store releases nothing. */
  async close(): Promise<void> {}
}
