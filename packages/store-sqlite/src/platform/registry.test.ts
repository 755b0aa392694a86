import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describePlatformRegistryContract } from '@odp/testkit';
import { applyMigrations, PLATFORM_MIGRATIONS } from '../migrations.js';
import { openSqlitePlatformRegistry } from './registry.js';
import type { SqlitePlatformRegistry } from './registry.js';
import { whileLockedElsewhere } from '../../test/lock-held-elsewhere.js';

const contractDirs: string[] = [];
describePlatformRegistryContract('sqlite', async (shared) => {
  if (shared === undefined || contractDirs.length === 0) {
    contractDirs.push(mkdtempSync(path.join(os.tmpdir(), 'odp-platform-contract-')));
  }
  return openSqlitePlatformRegistry(path.join(contractDirs[contractDirs.length - 1]!, 'platform.sqlite'));
});
afterAll(() => {
  for (const dir of contractDirs) rmSync(dir, { recursive: true, force: true });
});

describe('platform store (sqlite)', () => {
  let dir: string;
  let store: SqlitePlatformRegistry;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-platform-'));
    store = openSqlitePlatformRegistry(path.join(dir, 'platform.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a new database as created, and an existing one not', async () => {
    expect(store.created).toBe(true);
    await store.close();
    store = openSqlitePlatformRegistry(path.join(dir, 'platform.sqlite'));
    expect(store.created).toBe(false);
  });

  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const file = path.join(dir, 'platform.sqlite');
    const set = await whileLockedElsewhere(file, () => store.setSetting('greeting', 'hello'));
    const created = await whileLockedElsewhere(file, () =>
      store.createTenant({ name: 'Acme', modelSource: null }),
    );
    // A busy handler sleeping in this thread would have let no timer run until the release.
    expect([set.turns > 5, created.turns > 5]).toEqual([true, true]);
    expect(await store.getSetting('greeting')).toBe('hello');
    expect((await store.getTenant(created.result.id))?.name).toBe('Acme');
  });
});

describe('applyMigrations', () => {
  it('applies pending migrations once and refuses a newer database', () => {
    const db = new Database(':memory:');
    expect(applyMigrations(db, PLATFORM_MIGRATIONS)).toBe(0);
    expect(applyMigrations(db, PLATFORM_MIGRATIONS)).toBe(PLATFORM_MIGRATIONS.length);
    const next = [
      ...PLATFORM_MIGRATIONS,
      { version: PLATFORM_MIGRATIONS.length + 1, name: 'x', up: 'CREATE TABLE x (a)' },
    ];
    expect(applyMigrations(db, next)).toBe(PLATFORM_MIGRATIONS.length);
    expect(db.pragma('user_version', { simple: true })).toBe(next.length);
    expect(() => applyMigrations(db, PLATFORM_MIGRATIONS)).toThrow(/newer than this release/);
    db.close();
  });

  it('rolls back a failing migration with its version bump', () => {
    const db = new Database(':memory:');
    const failing = [{ version: 1, name: 'bad', up: 'CREATE TABLE y (a); SELECT * FROM missing_table' }];
    expect(() => applyMigrations(db, failing)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'y'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses numbering with gaps', () => {
    const db = new Database(':memory:');
    expect(() => applyMigrations(db, [{ version: 2, name: 'gap', up: '' }])).toThrow(/expected 1/);
    db.close();
  });
});
