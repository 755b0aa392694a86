/**
 * The registry's model versions on MongoDB. Uniqueness is carried by `_id`s, as in the rest of the
 * registry: a bundle's `_id` is (tenant, content hash), so the same files are one version; its
 * number comes from the tenant's counter (`$inc`), so two versions never share one (a save that
 * loses a race for the same hash leaves a gap). The current version is one document per tenant.
 */
import type { Collection, Db } from 'mongodb';
import { NotFoundError } from '@odp/core';
import { isDuplicateKey, upsertRacing } from '../server-errors.js';
import type { ModelVersionRecord, ModelVersions } from '@odp/core';

interface BundleDocument {
  /** The tenant id and the content hash, joined by a newline. */
  _id: string;
  tenantId: string;
  version: number;
  hash: string;
  bytes: number;
  createdAt: string;
  bundle: string;
}

interface CounterDocument {
  _id: string;
  last: number;
}

interface CurrentDocument {
  _id: string;
  version: number;
}

const WITHOUT_BUNDLE = { projection: { bundle: 0 } } as const;

function toRecord(document: Omit<BundleDocument, 'bundle'>): ModelVersionRecord {
  const { tenantId, version, hash, bytes, createdAt } = document;
  return { tenantId, version, hash, bytes, createdAt };
}

export class MongoModelVersions implements ModelVersions {
  private readonly bundles: Collection<BundleDocument>;
  private readonly counters: Collection<CounterDocument>;
  private readonly currents: Collection<CurrentDocument>;

  /** The registry's tenants: a version of an unknown tenant is refused. */
  private readonly tenants: Collection<{ _id: string }>;

  constructor(db: Db) {
    this.tenants = db.collection('tenants');
    this.bundles = db.collection('modelBundles');
    this.counters = db.collection('modelVersionCounters');
    this.currents = db.collection('currentModelVersions');
  }

  async createIndexes(): Promise<void> {
    await this.bundles.createIndex({ tenantId: 1, version: 1 });
  }

  async save(tenantId: string, hash: string, bundle: string): Promise<ModelVersionRecord> {
    const _id = `${tenantId}\n${hash}`;
    const existing = await this.bundles.findOne({ _id }, WITHOUT_BUNDLE);
    if (existing !== null) return toRecord(existing);
    if ((await this.tenants.countDocuments({ _id: tenantId }, { limit: 1 })) === 0)
      throw new NotFoundError('No such tenant.');
    const document: BundleDocument = {
      _id,
      tenantId,
      version: await this.nextVersion(tenantId),
      hash,
      bytes: Buffer.byteLength(bundle),
      createdAt: new Date().toISOString(),
      bundle,
    };
    try {
      await this.bundles.insertOne(document);
      return toRecord(document);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const stored = await this.bundles.findOne({ _id }, WITHOUT_BUNDLE);
      if (stored === null) throw error;
      return toRecord(stored);
    }
  }

  /** The tenant's next version number, from its counter (created by the first version stored). */
  private async nextVersion(tenantId: string): Promise<number> {
    const counter = await upsertRacing(() =>
      this.counters.findOneAndUpdate(
        { _id: tenantId },
        { $inc: { last: 1 } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    return counter?.last ?? 1;
  }

  async read(
    tenantId: string,
    version: number,
  ): Promise<{ record: ModelVersionRecord; bundle: string } | null> {
    const document = await this.bundles.findOne({ tenantId, version });
    return document === null ? null : { record: toRecord(document), bundle: document.bundle };
  }

  async list(tenantId: string): Promise<ModelVersionRecord[]> {
    const documents = await this.bundles.find({ tenantId }, WITHOUT_BUNDLE).sort({ version: 1 }).toArray();
    return documents.map(toRecord);
  }

  async setCurrent(tenantId: string, version: number): Promise<void> {
    if ((await this.bundles.countDocuments({ tenantId, version }, { limit: 1 })) === 0) {
      throw new NotFoundError('No such model version.');
    }
    await upsertRacing(() =>
      this.currents.updateOne({ _id: tenantId }, { $set: { version } }, { upsert: true }),
    );
  }

  async current(tenantId: string): Promise<ModelVersionRecord | null> {
    const current = await this.currents.findOne({ _id: tenantId });
    if (current === null) return null;
    const document = await this.bundles.findOne({ tenantId, version: current.version }, WITHOUT_BUNDLE);
    return document === null ? null : toRecord(document);
  }

  async currentOfAll(): Promise<ReadonlyMap<string, number>> {
    const documents = await this.currents.find().toArray();
    return new Map(documents.map((document) => [document._id, document.version]));
  }

  /** Removes every version of the tenant (its deletion). */
  async deleteTenant(tenantId: string): Promise<void> {
    await this.currents.deleteOne({ _id: tenantId });
    await this.bundles.deleteMany({ tenantId });
    await this.counters.deleteOne({ _id: tenantId });
  }
}
