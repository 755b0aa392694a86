/**
 * Rebuilds of the index fields of a tenant's object documents for a changed model.
 */
import { indexSignature } from '@odp/core';
import type { Model } from '@odp/core';
import type { TenantCollections } from './collections.js';
import { fromDocument, toDocument } from './documents.js';

export class DerivedRebuild {
  /** Incremented by each rebuild; a rebuild whose generation is no longer current stops. */
  private rebuildGeneration = 0;

  constructor(
    private readonly c: TenantCollections,
    /** Objects re-derived per bulk write. */
    private readonly rebuildBatchSize: number,
  ) {}

  /**
   * Re-derives the index fields of every object for `model` and records its signature. Works in id
   * order, `rebuildBatchSize` objects at a time; each object is replaced on its own (with its
   * version, so a concurrent write wins and is re-derived by itself). The signature is forgotten
   * first and recorded last, so an interrupted rebuild is redone by the next `applyModel`; a newer
   * rebuild supersedes this one, which then stops.
   */
  async rebuild(model: Model): Promise<number> {
    const generation = ++this.rebuildGeneration;
    await this.c.meta.deleteOne({ _id: 'model' });
    let count = 0;
    for (let after = ''; ;) {
      if (generation !== this.rebuildGeneration) return count;
      const docs = await this.c.objects
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
      await this.c.objects.bulkWrite(writes, { ordered: false });
      count += docs.length;
      after = docs.at(-1)?._id ?? after;
    }
    if (generation !== this.rebuildGeneration) return count;
    await this.c.meta.updateOne(
      { _id: 'model' },
      { $set: { signature: indexSignature(model) } },
      { upsert: true },
    );
    return count;
  }
}
