import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TenantDatabase } from './database.js';
import { WalCheckpointThread } from './wal-checkpoints.js';

/** Commits about 800 kB (some 200 pages, far below the connection's own checkpoint threshold). */
function writeRows(database: TenantDatabase): void {
  const value = 'x'.repeat(4000);
  database.inTransaction(() => {
    const insert = database.db.prepare('INSERT INTO meta (k, v) VALUES (?, ?)');
    for (let index = 0; index < 200; index++) insert.run(`row-${index}`, value);
  });
}

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('WalCheckpointThread', () => {
  let dir: string;
  let thread: WalCheckpointThread;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-checkpoints-'));
    thread = new WalCheckpointThread(20);
  });
  afterEach(async () => {
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the pages a commit wrote into the database file soon after, off the committing connection', async () => {
    const file = path.join(dir, 'documents.sqlite');
    const database = new TenantDatabase(file, { checkpointer: thread });
    const before = statSync(file).size;
    writeRows(database);
    expect(await eventually(() => statSync(file).size > before + 500_000)).toBe(true);
    await database.close();
  });

  it('leaves the pages in the log without a checkpointer, until the connection’s own threshold', async () => {
    const file = path.join(dir, 'documents.sqlite');
    const database = new TenantDatabase(file);
    const before = statSync(file).size;
    writeRows(database);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(statSync(file).size).toBe(before);
    await database.close();
  });

  it('closes its connection to a database that closes, so the closing connection is the last and removes the log', async () => {
    const file = path.join(dir, 'documents.sqlite');
    const database = new TenantDatabase(file, { checkpointer: thread });
    writeRows(database);
    const before = statSync(file).size;
    expect(await eventually(() => statSync(file).size > before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(true);
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('ignores commits once closed', async () => {
    const file = path.join(dir, 'documents.sqlite');
    await thread.close();
    const database = new TenantDatabase(file, { checkpointer: thread });
    const before = statSync(file).size;
    writeRows(database);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statSync(file).size).toBe(before);
    await database.close();
  });
});
