import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UnavailableError } from '@odp/core';
import { TenantModel, upgradeModelRepository } from './index.js';

const EXAMPLE = path.resolve(__dirname, '../../../examples/models/crm');
const INVOICE = 'classes/crm/invoice.json';

describe('TenantModel: model load status transitions', () => {
  let dir: string;
  const clock = () => new Date('2026-05-01T12:00:00.000Z');
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-status-'));
    fs.cpSync(EXAMPLE, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const breakInvoice = () => {
    const file = path.join(dir, INVOICE);
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace('"sum(lines.amount)"', '"sum(lines.price)"'),
    );
  };
  const brokenIssue = {
    severity: 'ERROR',
    file: INVOICE,
    path: '/fields/7/formula',
    message: "Unknown field or relation 'price' on class crm.invoiceLine",
  };

  it('LOADED -> REFUSED (previous model kept) -> LOADED', async () => {
    const tenantModel = await TenantModel.open(dir, { now: clock });
    const first = tenantModel.model;
    expect(tenantModel.status).toMatchObject({
      state: 'LOADED',
      checkedAt: '2026-05-01T12:00:00.000Z',
      errors: [],
      upgradableFiles: 1,
    });
    expect(tenantModel.status.warnings.map((w) => w.severity)).toEqual(['INFO']);

    breakInvoice();
    const refused = await tenantModel.reload();
    expect(refused.changed).toBe(false);
    expect(refused.status.state).toBe('REFUSED');
    expect(refused.status.errors).toEqual([brokenIssue]);
    expect(tenantModel.model).toBe(first);
    expect(tenantModel.requireModel()).toBe(first);

    fs.cpSync(path.join(EXAMPLE, INVOICE), path.join(dir, INVOICE));
    const loaded = await tenantModel.reload();
    expect(loaded).toMatchObject({ changed: true, status: { state: 'LOADED', errors: [] } });
    expect(tenantModel.model).not.toBe(first);
  });

  it('FAILED without an earlier model: requireModel throws UnavailableError naming the status', async () => {
    breakInvoice();
    const tenantModel = await TenantModel.open(dir);
    expect(tenantModel.status.state).toBe('FAILED');
    expect(tenantModel.model).toBeUndefined();
    let error: unknown;
    try {
      tenantModel.requireModel();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).message).toMatch(/latest model load is FAILED \(1 error\(s\)\)/);
    expect((error as UnavailableError).extra).toMatchObject({
      modelStatus: { state: 'FAILED', errors: [brokenIssue] },
    });
    fs.cpSync(path.join(EXAMPLE, INVOICE), path.join(dir, INVOICE));
    expect((await tenantModel.reload()).status.state).toBe('LOADED');
  });

  it('FAILED for a missing directory, with one issue; no model source is the empty model', async () => {
    const missing = await TenantModel.open(path.join(dir, 'nope'));
    expect(missing.status).toMatchObject({
      state: 'FAILED',
      errors: [
        {
          severity: 'ERROR',
          file: '',
          path: '',
          message: 'The model repository cannot be read: it is not a readable directory.',
        },
      ],
    });
    const none = await TenantModel.open(null);
    expect(none.status).toMatchObject({ state: 'LOADED', errors: [], warnings: [], upgradableFiles: 0 });
    expect([...(none.model?.classes.keys() ?? [])].every((name) => name.startsWith('system.'))).toBe(true);
  });

  it('serializes concurrent reloads', async () => {
    const order: string[] = [];
    let n = 0;
    const tenantModel = await TenantModel.open(dir, {
      load: async () => {
        const id = ++n;
        order.push(`start ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push(`end ${id}`);
        return { issues: [], upgradableFiles: [] };
      },
    });
    await Promise.all([tenantModel.reload(), tenantModel.reload()]);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });
});

describe('upgradeModelRepository', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-upgrade-'));
    fs.cpSync(EXAMPLE, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('converts the format-1 file and reports no issue for the example', async () => {
    const upgrade = await upgradeModelRepository(dir, new Date('2026-05-01T00:00:00Z'));
    expect(upgrade.files.map((f) => f.path)).toEqual(['classes/crm/note.json']);
    const converted = JSON.parse(upgrade.files[0]?.content ?? '{}');
    expect(converted).toEqual({
      version: 2,
      kind: 'class',
      class: 'crm.note',
      nameFormula: 'subject',
      fields: [
        { name: 'subject', type: 'TEXT', required: true },
        { name: 'body', type: 'LONGTEXT' },
        { name: 'notedAt', type: 'DATETIME' },
      ],
      relations: [{ name: 'persons', target: 'crm.person', multiple: true, inverse: 'notes' }],
    });
    expect(upgrade.report).toContain('## Converted files (1)');
    expect(upgrade.report).toContain('- `classes/crm/note.json`: format 1 to 2');
    expect(upgrade.report).toContain('## Issues that need a person (0)');
  });

  it('converted files load as format 2 in place of the originals', async () => {
    const upgrade = await upgradeModelRepository(dir);
    for (const file of upgrade.files) fs.writeFileSync(path.join(dir, file.path), file.content);
    expect((await upgradeModelRepository(dir)).files).toEqual([]);
    const tenantModel = await TenantModel.open(dir);
    expect(tenantModel.status).toMatchObject({ state: 'LOADED', upgradableFiles: 0 });
  });

  it('works for a model refused for reference errors and lists them', async () => {
    const note = path.join(dir, 'classes/crm/note.json');
    fs.writeFileSync(note, fs.readFileSync(note, 'utf8').replace('"crm.person"', '"crm.human"'));
    const upgrade = await upgradeModelRepository(dir);
    expect(upgrade.files.map((f) => f.path)).toEqual(['classes/crm/note.json']);
    expect(upgrade.report).toContain('## Issues that need a person (2)');
    expect(upgrade.report).toContain(
      "| ERROR | accessControl/ownData.json | /nodes/1/path/0 | Class crm.person has no relation 'notes' |",
    );
    expect(upgrade.report).toContain(
      "| ERROR | classes/crm/note.json | /relations/0/target | Unknown class 'crm.human' |",
    );
  });

  it('throws ValidationError when the repository cannot be read at all', async () => {
    await expect(upgradeModelRepository(path.join(dir, 'nope'))).rejects.toMatchObject({
      code: 'VALIDATION',
    });
  });
});
