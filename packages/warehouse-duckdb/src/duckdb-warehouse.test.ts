import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDbWarehouse, projectFile } from './duckdb-warehouse.js';
import { readWarehouseTable } from '../test/index.js';

const target = {
  tenantId: '0fef5e35-3ccf-4555-a667-acba891f9286',
  projectId: 'acme-analytics',
  dataset: 'crm',
  table: 'invoices',
  credentials: '{}',
};
let dir: string;
let warehouse: DuckDbWarehouse;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-warehouse-'));
  warehouse = new DuckDbWarehouse(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('creates the table with typed columns on the first write and casts the text values', async () => {
  await warehouse.write(target, {
    columns: {
      count: 'INT64',
      amount: 'NUMERIC',
      paid: 'BOOL',
      due: 'DATE',
      sentAt: 'TIMESTAMP',
      opensAt: 'TIME',
      status: 'STRING',
    },
    rows: [
      {
        id: 'a',
        values: {
          count: '3',
          amount: '1210.5',
          paid: 'true',
          due: '2026-03-01',
          sentAt: '2026-03-01T10:15:00.000Z',
          opensAt: '08:30:00',
          status: 'sent',
        },
      },
      { id: 'b', values: { count: null, amount: null, paid: 'false', status: null } },
    ],
    deletes: [],
  });
  const table = await readWarehouseTable(dir, target);
  expect(table.columns).toEqual({
    id: 'VARCHAR',
    count: 'BIGINT',
    amount: 'DECIMAL(38,9)',
    paid: 'BOOLEAN',
    due: 'DATE',
    sentAt: 'TIMESTAMP',
    opensAt: 'TIME',
    status: 'VARCHAR',
  });
  expect(table.rows).toEqual([
    {
      id: 'a',
      count: '3',
      amount: '1210.500000000',
      paid: true,
      due: '2026-03-01',
      sentAt: '2026-03-01 10:15:00',
      opensAt: '08:30:00',
      status: 'sent',
    },
    { id: 'b', count: null, amount: null, paid: false, due: null, sentAt: null, opensAt: null, status: null },
  ]);
});

it('replaces rows by id, removes deleted ids, and adds new columns without dropping old ones', async () => {
  await warehouse.write(target, {
    columns: { status: 'STRING' },
    rows: [
      { id: 'a', values: { status: 'draft' } },
      { id: 'b', values: { status: 'draft' } },
    ],
    deletes: [],
  });
  await warehouse.write(target, {
    columns: { total: 'NUMERIC' },
    rows: [{ id: 'a', values: { total: '10' } }],
    deletes: ['b', 'never-written'],
  });
  const table = await readWarehouseTable(dir, target);
  expect(table.columns).toEqual({ id: 'VARCHAR', status: 'VARCHAR', total: 'DECIMAL(38,9)' });
  expect(table.rows).toEqual([{ id: 'a', status: null, total: '10.000000000' }]);
});

it('writes nothing of a batch that fails, and refuses names that are not identifiers', async () => {
  await warehouse.write(target, {
    columns: { n: 'INT64' },
    rows: [{ id: 'a', values: { n: '1' } }],
    deletes: [],
  });
  await expect(
    warehouse.write(target, {
      columns: { n: 'INT64', label: 'STRING' },
      rows: [
        { id: 'b', values: { n: '2', label: 'x' } },
        { id: 'c', values: { n: 'not a number', label: 'y' } },
      ],
      deletes: ['a'],
    }),
  ).rejects.toThrow();
  expect(await readWarehouseTable(dir, target)).toEqual({
    columns: { id: 'VARCHAR', n: 'BIGINT' },
    rows: [{ id: 'a', n: '1' }],
  });
  await expect(
    warehouse.write({ ...target, table: 'x; DROP' }, { columns: {}, rows: [], deletes: [] }),
  ).rejects.toThrow("_table 'x; DROP' is not a table name");
  await expect(
    warehouse.write({ ...target, projectId: '../up' }, { columns: {}, rows: [], deletes: [] }),
  ).rejects.toThrow('is not a project name');
  expect(warehouse.targetProblem({ ...target, projectId: '../up' })).toBe(
    "_projectId '../up' is not a project name (letters, digits, '-', '_')",
  );
  expect(warehouse.targetProblem({ ...target, tenantId: '..' })).toContain('is not a directory name');
  expect(warehouse.targetProblem(target)).toBeNull();
});

it('keeps the same project of two tenants in two files', async () => {
  const other = { ...target, tenantId: '5d1f0c2e-8a47-4b6e-9c3d-2f1e0a9b8c7d' };
  const batch = (n: string) => ({
    columns: { n: 'INT64' as const },
    rows: [{ id: 'a', values: { n } }],
    deletes: [],
  });
  await warehouse.write(target, batch('1'));
  await warehouse.write(other, batch('2'));
  expect((await readWarehouseTable(dir, target)).rows).toEqual([{ id: 'a', n: '1' }]);
  expect((await readWarehouseTable(dir, other)).rows).toEqual([{ id: 'a', n: '2' }]);
});

it('deletes a tenant’s project files and keeps another tenant’s', async () => {
  const other = { ...target, tenantId: '5d1f0c2e-8a47-4b6e-9c3d-2f1e0a9b8c7d' };
  const batch = { columns: { n: 'INT64' as const }, rows: [{ id: 'a', values: { n: '1' } }], deletes: [] };
  await warehouse.write(target, batch);
  await warehouse.write(other, batch);
  await warehouse.deleteTenant(target.tenantId);
  expect(existsSync(path.join(dir, target.tenantId))).toBe(false);
  expect((await readWarehouseTable(dir, other)).rows).toEqual([{ id: 'a', n: '1' }]);
  await expect(warehouse.deleteTenant('../escape')).rejects.toThrow('is not a directory name');
});

it('fails while its file cannot be opened, and writes once it can', async () => {
  mkdirSync(projectFile(dir, target.tenantId, target.projectId), { recursive: true });
  const batch = { columns: { n: 'INT64' as const }, rows: [{ id: 'a', values: { n: '1' } }], deletes: [] };
  await expect(warehouse.write(target, batch)).rejects.toThrow();
  rmSync(projectFile(dir, target.tenantId, target.projectId), { recursive: true });
  await warehouse.write(target, batch);
  expect((await readWarehouseTable(dir, target)).rows).toEqual([{ id: 'a', n: '1' }]);
});
