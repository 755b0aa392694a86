import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractModel } from '@odp/testkit';
import { AppliedModel } from './applied-model.js';
import { TenantDatabase } from './database.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-applied-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('AppliedModel.derivedCurrent (two connections on one file: two api processes)', () => {
  const file = join(dir, 'tenant.db');
  const here = new TenantDatabase(file);
  const elsewhere = new TenantDatabase(file);
  afterAll(async () => {
    await here.close();
    await elsewhere.close();
  });
  const model = new AppliedModel(here, () => undefined, 'layout-1');
  model.use(contractModel, true);
  const record = (database: TenantDatabase, signature: string) =>
    database.inTransaction(() => {
      const put = database.statement('INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)');
      put.run('index_signature', signature);
      put.run('layout', 'layout-1');
    });

  it("follows the derived data's marks written by this connection and by another one", () => {
    expect(model.derivedCurrent()).toBe(false);
    record(here, model.signature);
    expect(model.derivedCurrent()).toBe(true);
    expect(model.derivedCurrent()).toBe(true);
    // Another process starts a rebuild: it forgets the signature.
    elsewhere.inTransaction(() => elsewhere.statement("DELETE FROM meta WHERE k = 'index_signature'").run());
    expect(model.derivedCurrent()).toBe(false);
    record(elsewhere, model.signature);
    expect(model.derivedCurrent()).toBe(true);
    // This process starts one.
    here.inTransaction(() => here.statement("DELETE FROM meta WHERE k = 'index_signature'").run());
    expect(model.derivedCurrent()).toBe(false);
  });
});
