/**
 * Rebuilds of the index fields of a tenant's object documents for a changed model.
 */
import { DerivedRebuildLoop, indexSignature } from '@odp/core';
import type { Model } from '@odp/core';
import type { TenantCollections } from './collections.js';
import { upsertRacing } from '../server-errors.js';
import { fromDocument, toDocument } from './documents.js';

export class DerivedRebuild {
  private readonly loop = new DerivedRebuildLoop();

  constructor(
    private readonly c: TenantCollections,
    /** Objects re-derived per bulk write. */
    private readonly rebuildBatchSize: number,
  ) {}

  /**
   * Re-derives the index fields of every object for `model` and records its signature (the loop
   * is `DerivedRebuildLoop`'s). Works in id order, `rebuildBatchSize` objects at a time; each
   * object is replaced on its own (with its version, so a concurrent write wins and is re-derived
   * by itself).
   */
  rebuild(model: Model): Promise<number> {
    return this.loop.run<string>({
      forgetSignature: async () => void (await this.c.meta.deleteOne({ _id: 'model' })),
      rederiveAfter: async (after) => {
        const docs = await this.c.objects
          .find({ _id: { $gt: after ?? '' } })
          .sort({ _id: 1 })
          .limit(this.rebuildBatchSize)
          .toArray();
        const last = docs.at(-1)?._id;
        if (last === undefined) return null;
        const writes = docs.map((doc) => ({
          replaceOne: {
            filter: { _id: doc._id, v: doc.v },
            replacement: toDocument(model, fromDocument(doc), { seq: doc.seq, v: doc.v + 1, acl: doc.acl }),
          },
        }));
        await this.c.objects.bulkWrite(writes, { ordered: false });
        return { count: docs.length, last };
      },
      recordSignature: async () =>
        void (await upsertRacing(() =>
          this.c.meta.updateOne(
            { _id: 'model' },
            { $set: { signature: indexSignature(model) } },
            { upsert: true },
          ),
        )),
    });
  }
}
