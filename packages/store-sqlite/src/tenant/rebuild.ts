/**
 * Rebuilds of the tenant's derived rows (class, index, counter and search rows) for a changed model,
 * in batches that let the process serve between them. See docs/storage.md.
 */
import type { Model } from '@odp/core';
import type { TenantAggregates } from './aggregates.js';
import type { AppliedModel } from './applied-model.js';
import type { BatchWriter } from './batch-writer.js';
import type { TenantDatabase } from './database.js';
import { OBJECT_COLUMNS, toStoredObject } from './object-rows.js';
import type { ObjectRow } from './object-rows.js';

export class DerivedRebuild {
  /** Incremented by each rebuild; a rebuild whose generation is no longer current stops. */
  private rebuildGeneration = 0;

  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly writer: BatchWriter,
    private readonly aggregates: TenantAggregates,
    /** Objects re-derived per transaction (the event loop runs between). */
    private readonly rebuildBatchSize: number,
  ) {}

  /**
   * Re-derives class, index and search rows of every object for `model` and records its signature.
   * Runs in transactions of `rebuildBatchSize` objects in key order, yielding to the event loop
   * between them, so the process keeps serving meanwhile. Each object is re-derived in one
   * transaction (its old rows replaced), so a reader sees every object with the rows of either the
   * previous or the new model (docs/storage.md). The signature is forgotten in the first batch and
   * recorded after the last, so an interrupted rebuild is redone by the next `applyModel`; a
   * rebuild started meanwhile (a newer model) supersedes this one, which then stops.
   */
  async rebuild(model: Model): Promise<number> {
    this.model.use(model);
    const generation = ++this.rebuildGeneration;
    const last = (this.database.statement('SELECT max(n) FROM objects').pluck().get() as number | null) ?? 0;
    this.database.inTransaction(() =>
      this.database.statement("DELETE FROM meta WHERE k = 'index_signature'").run(),
    );
    const batch = this.database.statement(
      `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.n > ? AND o.n <= ? ORDER BY o.n LIMIT ?`,
    );
    let count = 0;
    for (let after = 0; after < last;) {
      if (generation !== this.rebuildGeneration) return count;
      const rows = batch.all(after, last, this.rebuildBatchSize) as ObjectRow[];
      if (rows.length === 0) break;
      this.database.inTransaction(() => {
        for (const row of rows) this.writer.deriveRows(toStoredObject(row, {}), row.n, true);
      });
      count += rows.length;
      after = rows.at(-1)?.n ?? last;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (generation !== this.rebuildGeneration) return count;
    this.database.inTransaction(() => {
      this.aggregates.recompute();
      this.database
        .statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)')
        .run('index_signature', this.model.signature);
    });
    return count;
  }
}
