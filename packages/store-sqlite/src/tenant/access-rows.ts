/**
 * The access-control rows of the tenant store: the ACL rows of each object (and `acl_cls`, the
 * rows by class that drive protected lists), the holdings behind them, and which derived values
 * were computed from an object a reader may not see.
 */
import { hiddenDerivedFieldsOf } from '@odp/core';
import type { AccessFilter, AclRow, Holding, WriteBatch } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { TenantDatabase } from './database.js';
import type { StoredKeys } from './stored-keys.js';
import { hiddenAlongAny } from './query/access.js';

export class AccessRows {
  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
  ) {}

  /** The engine-neutral grouping is `hiddenDerivedFieldsOf`'s; one query per field and class combination. */
  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    if (ids.length === 0 || access.kind === 'all') return new Map();
    this.model.require();
    const rows = this.database
      .statement(
        'SELECT o.n AS n, o.id AS id, o.classes AS classes FROM objects o WHERE o.id IN (SELECT value FROM json_each(?))',
      )
      .all(JSON.stringify(ids)) as { n: number; id: string; classes: string }[];
    const keyOf = new Map(rows.map((row) => [row.id, row.n]));
    const idOfKey = new Map(rows.map((row) => [row.n, row.id]));
    const objects = rows.map((row) => ({ id: row.id, classes: JSON.parse(row.classes) as string[] }));
    return hiddenDerivedFieldsOf(this.model.current, objects, async (group, paths) => {
      const condition = hiddenAlongAny(this.database.keys, paths, access)?.('j.value');
      if (condition === undefined) return [];
      const keys = this.database
        .statement(`SELECT j.value FROM json_each(?) j WHERE ${condition.text}`)
        .pluck()
        .all(JSON.stringify(group.map((id) => keyOf.get(id))), ...condition.params) as number[];
      return keys.flatMap((key) => idOfKey.get(key) ?? []);
    });
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    return this.database
      .statement(
        `SELECT a.ac AS acId, a.node AS nodeId, a.def AS definition FROM acl a JOIN objects o ON o.n = a.n
       WHERE o.id = ? ORDER BY a.ac, a.node, a.def`,
      )
      .all(id) as AclRow[];
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.holdingsWhere('holder = ?', holderId);
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.holdingsWhere('ac = ?', acId);
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    const nodeIds = this.database
      .statement('SELECT DISTINCT node FROM acl ORDER BY node')
      .pluck()
      .all() as string[];
    const stepIds = this.database
      .statement('SELECT DISTINCT s.value FROM holdings h, json_each(h.steps) s ORDER BY s.value')
      .pluck()
      .all() as string[];
    return { nodeIds, stepIds };
  }

  /** Re-derives the `acl_cls` rows of an object from its ACL rows and classes (after either changed). */
  refreshAclClasses(n: number): void {
    this.database.statement('DELETE FROM acl_cls WHERE n = ?').run(n);
    this.database
      .statement(
        'INSERT OR IGNORE INTO acl_cls (ac, c, n) SELECT a.ac, m.c, a.n FROM acl a JOIN cls m ON m.n = a.n WHERE a.n = ?',
      )
      .run(n);
  }

  /**
   * Brings the ACL rows of each entry's object to the entry's rows (an object no longer stored is
   * skipped), writing only the rows that differ: a write that leaves an object's access alone (a
   * patch of an amount) dirties no page of `acl`, `acl_cls` or their indexes. The `acl_cls` rows
   * of an access control the object lost are deleted, those of one it gained inserted. `keys` are
   * the batch's (an object it inserted has no rows stored).
   */
  putAclRows(entries: WriteBatch['aclRows'], keys: StoredKeys): void {
    for (const entry of entries ?? []) {
      const n = keys.keyOf(entry.objectId);
      if (n === null) continue;
      const stored = keys.nothingStored(n, 'acl')
        ? []
        : (this.database.statement('SELECT ac, node, def FROM acl WHERE n = ?').raw(true).all(n) as [
            ac: string,
            node: string,
            def: string,
          ][]);
      const rowKey = (ac: string, node: string, def: string) => `${ac}\u0000${node}\u0000${def}`;
      const wanted = new Set(entry.rows.map((row) => rowKey(row.acId, row.nodeId, row.definition)));
      const present = new Set(stored.map((row) => rowKey(...row)));
      const remove = this.database.statement(
        'DELETE FROM acl WHERE n = ? AND ac = ? AND node = ? AND def = ?',
      );
      for (const row of stored) if (!wanted.has(rowKey(...row))) remove.run(n, ...row);
      const insert = this.database.statement(
        'INSERT OR IGNORE INTO acl (n, ac, node, def) VALUES (?, ?, ?, ?)',
      );
      for (const row of entry.rows) {
        if (!present.has(rowKey(row.acId, row.nodeId, row.definition))) {
          insert.run(n, row.acId, row.nodeId, row.definition);
        }
      }
      const acsBefore = new Set(stored.map(([ac]) => ac));
      const acsAfter = new Set(entry.rows.map((row) => row.acId));
      for (const ac of acsBefore) {
        if (!acsAfter.has(ac))
          this.database.statement('DELETE FROM acl_cls WHERE n = ? AND ac = ?').run(n, ac);
      }
      const insertClasses = this.database.statement(
        'INSERT OR IGNORE INTO acl_cls (ac, c, n) SELECT ?, m.c, m.n FROM cls m WHERE m.n = ?',
      );
      for (const ac of acsAfter) if (!acsBefore.has(ac)) insertClasses.run(ac, n);
    }
  }

  /** Replaces the holdings of each entry's anchor and definition. */
  putHoldings(entries: WriteBatch['holdings']): void {
    for (const entry of entries ?? []) {
      this.database
        .statement('DELETE FROM holdings WHERE anchor = ? AND def = ?')
        .run(entry.anchorId, entry.definition);
      const insert = this.database.statement(
        'INSERT INTO holdings (holder, ac, def, anchor, steps) VALUES (?, ?, ?, ?, ?)',
      );
      for (const row of entry.rows) {
        insert.run(row.holderId, row.acId, row.definition, row.anchorId, JSON.stringify(row.stepIds));
      }
    }
  }

  private holdingsWhere(where: string, value: string): Holding[] {
    const rows = this.database
      .statement(
        `SELECT holder, ac, def, anchor, steps FROM holdings WHERE ${where} ORDER BY anchor, def, holder, rowid`,
      )
      .all(value) as { holder: string; ac: string; def: string; anchor: string; steps: string }[];
    return rows.map((row) => ({
      holderId: row.holder,
      acId: row.ac,
      definition: row.def,
      anchorId: row.anchor,
      stepIds: JSON.parse(row.steps) as string[],
    }));
  }
}
