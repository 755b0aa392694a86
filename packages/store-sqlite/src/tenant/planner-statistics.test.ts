import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { TenantDatabase } from './database.js';

/**
 * A tenant database's planner statistics keep row counts and no value samples (planner-statistics.ts):
 * with samples, statements whose plans looked at a bound value were compiled again on every run.
 */
describe('planner statistics of a tenant database', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-planner-statistics-'));
    file = path.join(dir, 'documents.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const count = (db: Database.Database, table: string): number =>
    db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

  /** Objects with a skewed value index: what ANALYZE samples. */
  function fill(db: Database.Database): void {
    const insert = db.prepare('INSERT INTO ix (c, f, v, n) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let n = 1; n <= 2_000; n += 1) insert.run(1, 2, n % 100 === 0 ? 'rare' : 'common', n);
    })();
  }

  it('analyze() counts rows per index prefix and keeps no samples of values', async () => {
    const database = new TenantDatabase(file);
    fill(database.db);
    database.analyze();
    expect(database.db.prepare("SELECT stat FROM sqlite_stat1 WHERE idx = 'ix'").pluck().get()).toMatch(
      /^2000 /,
    );
    expect(count(database.db, 'sqlite_stat4')).toBe(0);
    await database.close();
  });

  it('removes the samples a file was analysed with when it is opened, and keeps the counts', async () => {
    await new TenantDatabase(file).close();
    const raw = new Database(file);
    fill(raw);
    raw.exec('ANALYZE');
    expect(count(raw, 'sqlite_stat4')).toBeGreaterThan(0);
    raw.close();
    const database = new TenantDatabase(file);
    expect(count(database.db, 'sqlite_stat4')).toBe(0);
    expect(count(database.db, 'sqlite_stat1')).toBeGreaterThan(0);
    await database.close();
  });
});
