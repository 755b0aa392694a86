/**
 * Rebuilds of the tenant's derived rows (class, index, class value table, counter and search rows)
 * for a changed model, in batches that let the process serve between them. See docs/storage.md.
 */
import { DerivedRebuildLoop } from '@odp/core';
import type { Model } from '@odp/core';
import type { TenantAggregates } from './aggregates.js';
import type { AppliedModel } from './applied-model.js';
import type { BatchWriter } from './batch-writer.js';
import type { ClassColumns } from './class-columns.js';
import type { TenantDatabase } from './database.js';
import { OBJECT_COLUMNS, objectRows, toStoredObject } from './object-rows.js';
import { limitClause } from './query/sql.js';

export class DerivedRebuild {
  private readonly loop = new DerivedRebuildLoop();

  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly writer: BatchWriter,
    private readonly aggregates: TenantAggregates,
    private readonly columns: ClassColumns,
    /** Objects re-derived per transaction (the event loop runs between). */
    private readonly rebuildBatchSize: number,
  ) {}

  /**
   * Re-derives class, index and search rows of every object for `model` and records its signature
   * (the loop is `DerivedRebuildLoop`'s). Runs in transactions of `rebuildBatchSize` objects in key
   * order, up to the last object stored when it starts. Each object is re-derived in one
   * transaction (its old rows replaced), so a reader sees every object with the rows of either the
   * previous or the new model (docs/storage.md).
   */
  async rebuild(model: Model): Promise<number> {
    this.model.use(model);
    const last = (this.database.statement('SELECT max(n) FROM objects').pluck().get() as number | null) ?? 0;
    const batch = this.database.statement(
      `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.n > ? AND o.n <= ? ORDER BY o.n ${limitClause(this.rebuildBatchSize)}`,
    );
    return this.loop.run<number>({
      forgetSignature: () =>
        this.database.inWriteTransaction(() => {
          this.database.statement("DELETE FROM meta WHERE k = 'index_signature'").run();
          this.columns.prepareTables();
        }),
      rederiveAfter: async (after) => {
        const rows = objectRows(batch, [after ?? 0, last]);
        if (rows.length === 0) return null;
        await this.database.inWriteTransaction(() => {
          for (const row of rows) this.writer.deriveRows(toStoredObject(row, {}), row.n);
        });
        return { count: rows.length, last: rows.at(-1)?.n ?? last };
      },
      recordSignature: () =>
        this.database.inWriteTransaction(() => {
          this.aggregates.recompute();
          this.database
            .statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)')
            .run('index_signature', this.model.signature);
          this.database
            .statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)')
            .run('layout', this.model.layout);
        }),
    });
  }
}
