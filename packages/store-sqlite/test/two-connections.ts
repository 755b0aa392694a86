/**
 * Two connections to one new tenant database file, as two api processes have, opened before and
 * closed after each test of the calling `describe`, and the `meta` rows the tests write and read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TenantDatabase } from '../src/tenant/database.js';

export interface TwoConnections {
  readonly first: TenantDatabase;
  readonly second: TenantDatabase;
}

/**
 * Registers the connections' opening and closing; read them inside the tests. `maxTurnMs`: the
 * first connection's bound of a write turn.
 */
export function twoConnections(prefix: string, maxTurnMs?: number): TwoConnections {
  let dir = '';
  const opened: { first?: TenantDatabase; second?: TenantDatabase } = {};
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const file = path.join(dir, 'documents.sqlite');
    opened.first = new TenantDatabase(file, maxTurnMs === undefined ? {} : { maxTurnMs });
    opened.second = new TenantDatabase(file);
  });
  afterEach(async () => {
    await opened.second?.close();
    await opened.first?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get first() {
      return opened.first!;
    },
    get second() {
      return opened.second!;
    },
  };
}

/** A write of the `meta` row `key` through `database`, to run in a transaction. */
export const putMeta = (database: TenantDatabase, key: string, value: string) => () =>
  database.statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)').run(key, value);

/** The value of the `meta` row `key` as `database` reads it. */
export const metaValue = (database: TenantDatabase, key: string): unknown =>
  database.statement('SELECT v FROM meta WHERE k = ?').pluck().get(key);
