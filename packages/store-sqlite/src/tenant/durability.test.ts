import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contractModel, uuid } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';

/**
 * The tenant store's durability guarantee (docs/storage.md): every write acknowledged before the
 * process is killed (SIGKILL: no flush, no close, no checkpoint) is there on reopen, with its
 * derived rows. `synchronous = NORMAL` under WAL meets it; only an OS crash may lose the last ones.
 */
describe('tenant store durability', () => {
  it('keeps every write acknowledged before SIGKILL, with its index, search and ACL rows', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-tenant-durability-'));
    const file = path.join(dir, 'tenant.sqlite');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@odp/source', path.join(__dirname, 'durability.child.ts'), file],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const acknowledged = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const acks = [...out.matchAll(/ACK (\d+)\n/g)];
          const last = Number(acks.at(-1)?.[1] ?? 0);
          if (last >= 200) resolve(last);
        });
        child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;

      const store = openSqliteTenantStore({ file });
      await store.applyModel(contractModel);
      const all = { kind: 'all' } as const;
      const ids = Array.from({ length: acknowledged }, (_, index) => uuid(index + 1));
      expect((await store.getMany(ids, all)).map((object) => object.id).sort()).toEqual([...ids].sort());
      const last = uuid(acknowledged);
      expect(await store.aclRowsOf(last)).toEqual([
        { acId: `ac-${acknowledged}`, nodeId: last, definition: 'owner' },
      ]);
      const filters = [{ kind: 'equals', field: 'employees', type: 'INTEGER', value: acknowledged } as const];
      expect(
        (await store.list({ className: 'ct.company', filters, page: 0, size: 5 }, all)).map((o) => o.id),
      ).toEqual([last]);
      const found = await store.search.search(
        { text: `durable ${acknowledged}`, classes: ['ct.company'], size: 5 },
        all,
      );
      expect(found.ids).toContain(last);
      await store.close();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
