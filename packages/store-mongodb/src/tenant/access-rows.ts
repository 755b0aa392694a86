/**
 * The access-control rows of the MongoDB tenant store: the ACL rows kept on each object document
 * (`acl`, `ac`), the holdings behind them, and which derived values were computed from an object
 * a reader may not see.
 */
import { hiddenDerivedFieldsOf } from '@odp/core';
import type { AccessFilter, AclRow, Holding, WriteBatch } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { HoldingDoc, Session, TenantCollections } from './collections.js';
import { aclRowsOfDocument, compareText } from './documents.js';
import type { AclEntry } from './documents.js';
import { hiddenAmong, restricts } from './derived.js';

export class AccessRows {
  constructor(
    private readonly c: TenantCollections,
    private readonly model: AppliedModel,
  ) {}

  /** The engine-neutral grouping is `hiddenDerivedFieldsOf`'s; one walk of each field's source paths (derived.ts). */
  async hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
    if (ids.length === 0 || !restricts(access)) return new Map();
    this.model.require();
    const docs = await this.c.objects
      .find({ _id: { $in: [...ids] } }, { projection: { _id: 1, classes: 1 } })
      .toArray();
    const objects = docs.map((doc) => ({ id: doc._id, classes: doc.classes }));
    return hiddenDerivedFieldsOf(this.model.current, objects, (group, paths) =>
      hiddenAmong(this.c.objects, group, paths, access),
    );
  }

  async aclRowsOf(id: string): Promise<AclRow[]> {
    const doc = await this.c.objects.findOne({ _id: id }, { projection: { acl: 1 } });
    return doc === null ? [] : aclRowsOfDocument(doc);
  }

  async holdingsOf(holderId: string): Promise<Holding[]> {
    return this.holdingsWhere({ holder: holderId });
  }

  async holdingsOfAcId(acId: string): Promise<Holding[]> {
    return this.holdingsWhere({ ac: acId });
  }

  async storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }> {
    const withRows = await this.c.objects
      .find({ 'ac.0': { $exists: true } }, { projection: { acl: 1 } })
      .toArray();
    const nodeIds = new Set(withRows.flatMap((doc) => doc.acl.map((row) => row.n)));
    const holdings = await this.c.holdings.find({}, { projection: { steps: 1 } }).toArray();
    const stepIds = new Set(holdings.flatMap((holding) => holding.steps));
    return { nodeIds: [...nodeIds].sort(compareText), stepIds: [...stepIds].sort(compareText) };
  }

  /** Replaces the ACL rows of each entry's object (kept on its document, with its acIds). */
  async putAclRows(entries: WriteBatch['aclRows'], session: Session): Promise<void> {
    for (const entry of entries ?? []) {
      const acl: AclEntry[] = entry.rows.map((row) => ({ a: row.acId, n: row.nodeId, d: row.definition }));
      await this.c.objects.updateOne(
        { _id: entry.objectId },
        { $set: { acl, ac: [...new Set(acl.map((row) => row.a))] }, $inc: { v: 1 } },
        session,
      );
    }
  }

  /** Replaces the holdings of each entry's anchor and definition. */
  async putHoldings(entries: WriteBatch['holdings'], session: Session): Promise<void> {
    for (const entry of entries ?? []) {
      await this.c.holdings.deleteMany({ anchor: entry.anchorId, def: entry.definition }, session);
      if (entry.rows.length === 0) continue;
      await this.c.holdings.insertMany(
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
  }

  private async holdingsWhere(filter: Partial<HoldingDoc>): Promise<Holding[]> {
    const docs = await this.c.holdings.find(filter).sort({ anchor: 1, def: 1, holder: 1, pos: 1 }).toArray();
    return docs.map((doc) => ({
      holderId: doc.holder,
      acId: doc.ac,
      definition: doc.def,
      anchorId: doc.anchor,
      stepIds: doc.steps,
    }));
  }
}
