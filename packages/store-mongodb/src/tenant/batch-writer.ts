/**
 * The batch writer of the MongoDB tenant store: applies a `WriteBatch` in the port's order (its
 * idempotency record, puts, redirects, deletes, ACL rows, holdings, events, outbox jobs), after checking its expectations,
 * links and unique values. See `write` for what a batch guarantees with and without transactions.
 */
import { NotFoundError, WriteConflictError } from '@odp/core';
import type { StoredObject, WriteBatch } from '@odp/core';
import type { MongoClient } from 'mongodb';
import type { AccessRows } from './access-rows.js';
import type { AppliedModel } from './applied-model.js';
import type { UniqueClaims } from './claims.js';
import { isDuplicateKey, upsertRacing } from '../server-errors.js';
import type { Session, TenantCollections } from './collections.js';
import { parseLinkEntry, toDocument } from './documents.js';
import type { TenantEvents } from './events.js';
import type { MongoIdempotencyRecords } from './idempotency.js';
import type { TenantOutbox } from './outbox.js';

export class BatchWriter {
  constructor(
    private readonly c: TenantCollections,
    private readonly model: AppliedModel,
    /** The process's client (sessions of transactions). */
    private readonly client: MongoClient,
    /** The server runs multi-document transactions: each batch is then one (see `write`). */
    private readonly transactions: boolean,
    private readonly claims: UniqueClaims,
    private readonly accessRows: AccessRows,
    private readonly events: TenantEvents,
    private readonly outbox: TenantOutbox,
    private readonly idempotency: MongoIdempotencyRecords,
  ) {}

  /**
   * Applies the batch. With transactions (a replica set or sharded cluster) the whole batch is one
   * transaction, retried by the driver on transient conflicts. Without them (a standalone server,
   * FerretDB) the batch is first validated completely - every link target exists, no unique value
   * is shared - so a refused batch writes nothing; then applied in the port's order with writes that
   * are each atomic on one document and idempotent (README.md lists what a crash midway leaves).
   * The batch's idempotency record is stored first; without transactions, a batch that then fails
   * removes it again, so a retry with its key runs again.
   */
  async write(batch: WriteBatch): Promise<void> {
    const held = await this.claims.claimVersions(batch.expect ?? []);
    try {
      if (!this.transactions) {
        await this.applyWithoutTransaction(batch);
        return;
      }
      const session = this.client.startSession();
      try {
        await session.withTransaction(() => this.apply(batch, { session }));
      } finally {
        await session.endSession();
      }
    } finally {
      await this.claims.releaseVersions(held);
    }
  }

  private async applyWithoutTransaction(batch: WriteBatch): Promise<void> {
    const record = batch.idempotency;
    if (record) await this.idempotency.insert(record, {});
    try {
      await this.applyChanges(batch, {});
    } catch (error) {
      if (record) await this.idempotency.withdraw(record);
      throw error;
    }
  }

  /** The whole batch in one transaction's `session`. */
  private async apply(batch: WriteBatch, session: Session): Promise<void> {
    if (batch.idempotency) await this.idempotency.insert(batch.idempotency, session);
    await this.applyChanges(batch, session);
  }

  /** The batch without its idempotency record. */
  private async applyChanges(batch: WriteBatch, session: Session): Promise<void> {
    const expected = new Map((batch.expect ?? []).map((entry) => [entry.id, entry.modifiedAt]));
    await this.checkExpectations(expected, session);
    // Objects the batch expects are put first, so a conditional put that fails applies nothing.
    const puts = [...(batch.put ?? [])].sort(
      (a, b) => (expected.has(a.id) ? 0 : 1) - (expected.has(b.id) ? 0 : 1),
    );
    const deletes = new Set(batch.delete ?? []);
    await this.checkLinks(puts, session);
    const claims = await this.claims.checkUnique(puts, deletes, session);
    await this.claims.claimUnique(claims, new Set([...puts.map((object) => object.id), ...deletes]), session);
    await this.putObjects(puts, expected, session);
    for (const redirect of batch.redirects ?? []) {
      // An id already redirected to `from` now leads to `to`, so chains follow merges.
      await this.c.redirects.updateMany({ to: redirect.from }, { $set: { to: redirect.to } }, session);
      await upsertRacing(
        () =>
          this.c.redirects.updateOne(
            { _id: redirect.from },
            { $set: { to: redirect.to } },
            { ...session, upsert: true },
          ),
        session.session !== undefined,
      );
    }
    for (const id of deletes) await this.deleteObject(id, session);
    await this.claims.releaseClaims(puts, claims, deletes, session);
    await this.accessRows.putAclRows(batch.aclRows, session);
    await this.accessRows.putHoldings(batch.holdings, session);
    await this.events.append(batch.events ?? [], session);
    await this.outbox.enqueue(batch.jobs ?? [], session);
  }

  /** WriteConflictError when an expected object no longer carries the `modifiedAt` its writer read. */
  private async checkExpectations(
    expected: ReadonlyMap<string, string | null>,
    session: Session,
  ): Promise<void> {
    if (expected.size === 0) return;
    const current = new Map(
      (
        await this.c.objects
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
        await this.c.objects
          .find({ _id: { $in: [...targets] } }, { ...session, projection: { _id: 1 } })
          .toArray()
      ).map((doc) => doc._id),
    );
    const missing = [...targets].find((id) => !found.has(id));
    if (missing !== undefined) throw new NotFoundError(`The linked object ${missing} does not exist.`);
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
          await this.c.objects
            .find(
              { _id: { $in: pending.map((object) => object.id) } },
              { ...session, projection: { seq: 1, v: 1, acl: 1 } },
            )
            .toArray()
        ).map((doc) => [doc._id, doc]),
      );
      const fresh = pending.filter((object) => !stored.has(object.id));
      const last = fresh.length === 0 ? 0 : await this.c.nextNumbers('objects', fresh.length, session);
      const retry: StoredObject[] = [];
      for (const object of pending) {
        const kept = stored.get(object.id);
        if (kept === undefined) {
          const seq = last - fresh.length + 1 + fresh.indexOf(object);
          try {
            await this.c.objects.insertOne(
              toDocument(this.model.current, object, { seq, v: 0, acl: [] }),
              session,
            );
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
            // Expected absent, created meanwhile by a writer that expected nothing.
            if (expected.has(object.id)) throw new WriteConflictError(object.id);
            retry.push(object);
          }
          continue;
        }
        const doc = toDocument(this.model.current, object, { seq: kept.seq, v: kept.v + 1, acl: kept.acl });
        const modifiedAt = expected.get(object.id);
        if (modifiedAt === null) throw new WriteConflictError(object.id);
        const replaced = await this.c.objects.replaceOne(
          { _id: object.id, v: kept.v, ...(modifiedAt === undefined ? {} : { modifiedAt }) },
          doc,
          session,
        );
        if (replaced.matchedCount > 0) continue;
        if (modifiedAt !== undefined) {
          const now = await this.c.objects.findOne(
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
    await this.c.objects.deleteOne({ _id: id }, session);
    const linkers = await this.c.objects.find({ lt: id }, { ...session, projection: { lk: 1 } }).toArray();
    for (const linker of linkers) {
      const gone = linker.lk.filter((entry) => parseLinkEntry(entry).targetId === id);
      await this.c.objects.updateOne(
        { _id: linker._id },
        { $pullAll: { lt: [id], lk: gone }, $inc: { v: 1 } },
        session,
      );
    }
    await this.c.redirects.deleteMany({ to: id }, session);
  }
}
