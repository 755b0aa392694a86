/**
 * The query planner's statistics of a tenant database: row counts per index prefix
 * (`sqlite_stat1`), without samples of index values (`sqlite_stat4`).
 *
 * better-sqlite3's SQLite is built with STAT4: `ANALYZE` also keeps samples (the limited analysis of
 * `PRAGMA optimize` at close does not), and a statement whose plan looked at a bound parameter's
 * value among them is compiled again each time that parameter is bound: on every run.
 * With samples, 7% of a patch's CPU at 100,000 invoices went to compiling the same statements again
 * (`sqlite3Reprepare`: the value index's deletes and unique probes, reads by key), 3% of a filtered
 * page's. The row counts choose the same indexes for this store's statements: each reads one range
 * of the index its columns name, and the list planner picks the range that drives a page by counting
 * (list-planner.ts).
 */
import type Database from 'better-sqlite3';

/** Removes the value samples `ANALYZE` kept, if any, and has the planner read the statistics again. */
export function dropValueSamples(db: Database.Database): void {
  const sampled =
    db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat4'").get() !== undefined &&
    db.prepare('SELECT 1 FROM sqlite_stat4 LIMIT 1').get() !== undefined;
  if (!sampled) return;
  // `ANALYZE sqlite_schema` analyses nothing: it loads the statistics tables into the planner.
  db.transaction(() => db.exec('DELETE FROM sqlite_stat4; ANALYZE sqlite_schema')).immediate();
}
