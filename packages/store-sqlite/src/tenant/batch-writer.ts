/**
 * The batch writer of the tenant store: applies a `WriteBatch` inside the caller's transaction, in
 * this order: its idempotency record (IdempotencyKeyTakenError when its key is held), puts (rows
 * first, then links, so objects of the batch may link to each other), redirects, deletes, unique
 * checks, ACL rows, holdings, events, outbox jobs. Throws NotFoundError when a link names an object
 * that does not exist after the batch, ConflictError when a `unique` value would be shared,
 * WriteConflictError when an expected version moved; nothing is applied then (the transaction
 * rolls back). Each object's class, index, class value table, counter and search rows are derived
 * from the applied model in the same transaction.
 */
import {
  LoopSlices,
  NotFoundError,
  WriteConflictError,
  jsonInSlices,
  refuseUniqueValue,
  uniqueValuesOf,
} from '@odp/core';
import type { StoredObject, WriteBatch } from '@odp/core';
import type { AccessRows } from './access-rows.js';
import type { AppliedModel } from './applied-model.js';
import type { TenantDatabase } from './database.js';
import type { DerivedRows } from './derived-rows.js';
import { appendEvents } from './events.js';
import type { SqliteIdempotencyRecords } from './idempotency.js';
import { ixKey } from './index-keys.js';
import { OBJECT_COLUMNS, objectRows, toStoredObject } from './object-rows.js';
import type { ObjectRow } from './object-rows.js';
import type { TenantOutbox } from './outbox.js';
import { putRedirect } from './redirects.js';
import { StoredKeys } from './stored-keys.js';

/** The `meta` key counting the writes that changed the reference of a stored object. */
const REFS_CHANGED = 'refs_changed';

/**
 * How many writes changed the reference of a stored object (its BASIC class or name) or deleted
 * one, as committed (null before the first): what remembered references check instead of
 * `data_version`, which every commit of another process changes, creates, patches of values and a
 * search's frozen ranking included.
 */
export function refsChangedCount(database: TenantDatabase): string | null {
  return (
    (database.statement(`SELECT v FROM meta WHERE k = '${REFS_CHANGED}'`).pluck().get() as
      string | undefined) ?? null
  );
}

/** The columns of an object row a write sets, in the order of the insert's values. */
const UPDATED_COLUMNS = ['basic', 'classes', 'name', 'vals', 'created', 'modified'] as const;

/** An object row as a write sets it: every column but its key and id. */
type WrittenColumns = Omit<ObjectRow, 'n' | 'id'>;

export class BatchWriter {
  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly derived: DerivedRows,
    private readonly accessRows: AccessRows,
    private readonly outbox: TenantOutbox,
    private readonly idempotency: SqliteIdempotencyRecords,
  ) {}

  /**
   * Writes `batch` (inside the caller's transaction). `valuesJson` holds the JSON text of put
   * objects' values serialised before the transaction ({@link valuesJsonOf}); the others are
   * serialised here.
   */
  apply(batch: WriteBatch, valuesJson?: ReadonlyMap<StoredObject, string>): void {
    if (batch.idempotency) this.idempotency.insert(batch.idempotency);
    for (const { id, modifiedAt } of batch.expect ?? []) {
      const current = this.database.statement('SELECT modified FROM objects WHERE id = ?').pluck().get(id) as
        string | undefined;
      if ((current ?? null) !== modifiedAt) throw new WriteConflictError(id);
    }
    const stored = new StoredKeys(this.database);
    let refsChanged = false;
    for (const object of batch.put ?? [])
      refsChanged = this.putObject(object, valuesJson?.get(object), stored) || refsChanged;
    for (const object of batch.put ?? []) this.putLinks(object, stored);
    // Redirects first: an id already redirected to a merged-away object follows it to the survivor
    // (chains), before deleting that object drops the redirects that led to it.
    for (const redirect of batch.redirects ?? []) putRedirect(this.database, redirect);
    for (const id of batch.delete ?? []) refsChanged = this.deleteObject(id, stored) || refsChanged;
    if (refsChanged) {
      this.database
        .statement(
          `INSERT INTO meta (k, v) VALUES ('${REFS_CHANGED}', '1')
           ON CONFLICT (k) DO UPDATE SET v = CAST(v AS INTEGER) + 1`,
        )
        .run();
    }
    for (const object of batch.put ?? []) this.checkUnique(object, stored);
    this.accessRows.putAclRows(batch.aclRows, stored);
    this.accessRows.putHoldings(batch.holdings);
    appendEvents(this.database, batch.events ?? []);
    this.outbox.enqueue(batch.jobs ?? []);
  }

  /**
   * Inserts the object row, or updates it in place (keeping its key, so creation order holds), and
   * writes its class, index and search rows (replacing the old ones of an update). True when it
   * changed the BASIC class or name of a stored object.
   */
  private putObject(object: StoredObject, valuesJson: string | undefined, stored: StoredKeys): boolean {
    const row: WrittenColumns = {
      basic: object.basicClass,
      classes: JSON.stringify(object.classes),
      name: object.name,
      vals: valuesJson ?? JSON.stringify(object.values),
      created: object.createdAt,
      modified: object.modifiedAt,
    };
    const existing = stored.keyOf(object.id);
    if (existing !== null) {
      const [previous] = objectRows(
        this.database.statement(`SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.n = ?`),
        [existing],
      ) as [ObjectRow];
      this.updateRow(existing, previous, row);
      this.derived.replace(object, existing, toStoredObject(previous, {}));
      return previous.basic !== object.basicClass || previous.name !== object.name;
    }
    const n = this.database
      .statement(
        'INSERT INTO objects (id, basic, classes, name, vals, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING n',
      )
      .pluck()
      .get(object.id, ...UPDATED_COLUMNS.map((column) => row[column])) as number;
    stored.inserted(object.id, n);
    this.derived.insert(object, n);
    return false;
  }

  /**
   * Sets the columns of the stored row `n` that differ from `previous`, and only those: an index on
   * a column the statement sets has its entry deleted and inserted again even when the value is the
   * same, dirtying its page (`objects_name`, for a patch that leaves the name alone).
   */
  private updateRow(n: number, previous: ObjectRow, row: WrittenColumns): void {
    const changed = UPDATED_COLUMNS.filter((column) => previous[column] !== row[column]);
    if (changed.length === 0) return;
    this.database
      .statement(`UPDATE objects SET ${changed.map((column) => `${column} = ?`).join(', ')} WHERE n = ?`)
      .run(...changed.map((column) => row[column]), n);
  }

  /**
   * Re-derives the class membership, value index, class value table, counter and search rows of a
   * stored object (a rebuild for a changed model).
   */
  deriveRows(object: StoredObject, n: number): void {
    this.derived.replace(object, n);
  }

  /**
   * Writes the object's forward links, in order; when they are the ones stored (a write that left
   * its relations alone), nothing is written. An object inserted by the batch has none stored.
   */
  private putLinks(object: StoredObject, stored: StoredKeys): void {
    const n = stored.keyOf(object.id) ?? -1;
    const links: [rel: number, pos: number, dst: number][] = [];
    for (const [relationKey, targets] of Object.entries(object.links)) {
      const rel = this.database.intern(`r:${relationKey}`);
      targets.forEach((targetId, position) => {
        const target = stored.keyOf(targetId);
        if (target === null) throw new NotFoundError(`The linked object ${targetId} does not exist.`);
        links.push([rel, position, target]);
      });
    }
    links.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    if (!stored.nothingStored(n, 'links')) {
      const current = this.database
        .statement('SELECT rel, pos, dst FROM links WHERE src = ? ORDER BY rel, pos')
        .raw(true)
        .all(n) as [number, number, number][];
      if (JSON.stringify(current) === JSON.stringify(links)) return;
      this.database.statement('DELETE FROM links WHERE src = ?').run(n);
    }
    const insert = this.database.statement(
      'INSERT OR IGNORE INTO links (src, rel, pos, dst) VALUES (?, ?, ?, ?)',
    );
    for (const [rel, pos, dst] of links) insert.run(n, rel, pos, dst);
  }

  /**
   * Removes the object with everything derived from it: class, index and search rows, its links in
   * both directions (no link ever dangles), its ACL rows, and redirects that led to it.
   */
  private deleteObject(id: string, stored: StoredKeys): boolean {
    const n = stored.keyOf(id);
    if (n === null) return false;
    stored.deleted(id);
    this.derived.remove(n);
    for (const sql of [
      'DELETE FROM links WHERE src = ?',
      'DELETE FROM links WHERE dst = ?',
      'DELETE FROM acl WHERE n = ?',
      'DELETE FROM acl_cls WHERE n = ?',
      'DELETE FROM objects WHERE n = ?',
    ]) {
      this.database.statement(sql).run(n);
    }
    this.database.statement('DELETE FROM redirects WHERE dst = ?').run(id);
    return true;
  }

  /**
   * A `unique` field's values must not be held by another object of the declaring class
   * (subclasses included); the fields and keys are `uniqueValuesOf`'s.
   */
  private checkUnique(object: StoredObject, stored: StoredKeys): void {
    const n = stored.keyOf(object.id);
    if (n === null) return;
    const clash = this.database
      .statement('SELECT 1 FROM ix WHERE c = ? AND f = ? AND v = ? AND n <> ? LIMIT 1')
      .pluck();
    for (const { field, keys } of uniqueValuesOf(this.model.current, object.classes, object.values)) {
      const c = this.database.lookupKey(`c:${field.declaredOn}`);
      const f = this.database.lookupKey(`f:${field.name}`);
      for (const key of keys) {
        if (clash.get(c, f, ixKey(key), n) !== undefined) refuseUniqueValue(field.name);
      }
    }
  }
}

/** Levels of a values object opened by {@link valuesJsonOf}: its fields, then their elements. */
const VALUES_LEVELS = 2;

/**
 * The JSON text of the values of each of `objects`, serialised in slices of the event loop before
 * the write's transaction (`jsonInSlices`): a text field of a megabyte takes 3 ms to serialise,
 * which inside the transaction held the event loop, and every other tenant's requests, for it.
 */
export async function valuesJsonOf(objects: readonly StoredObject[]): Promise<Map<StoredObject, string>> {
  const slices = new LoopSlices();
  const texts = new Map<StoredObject, string>();
  for (const object of objects) {
    texts.set(object, (await jsonInSlices(object.values, slices, VALUES_LEVELS)) ?? '{}');
  }
  // A transaction after a slice of serialising starts a slice of its own.
  await slices.next();
  return texts;
}
