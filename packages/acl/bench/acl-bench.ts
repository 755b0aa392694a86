/**
 * Access-control benchmark on the example CRM model over the SQLite tenant store (issue figures:
 * 1,000,000 objects, 10,000 anchors, 1,000 accounts):
 *
 * - full rebuild time and peak resident memory;
 * - deriving the ACL rows and holdings of one create (`changesFor`);
 * - a member's filtered first page against the same query for the system account.
 *
 * Run: `node --import tsx packages/acl/bench/acl-bench.ts [objects]` (default 1,000,000). Prints JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UNRESTRICTED } from '@odp/core';
import type { Account, AccessFilter, ListPlan, StoredObject } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { openTenantStore } from '@odp/store-sqlite';
import { RebuildTracker, TenantAccessControl } from '../src/index.js';

const TENANT = '7b0c2a4e-1d2f-4e3a-9b8c-000000000001';
const total = Number(process.argv[2] ?? 1_000_000);
const anchors = Math.max(10, Math.round(total / 100));
const accounts = Math.max(10, Math.round(total / 1000));
const invoices = total - anchors - accounts;

let seed = 1;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const uuid = (prefix: number, index: number): string =>
  `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;

function object(
  id: string,
  basicClass: string,
  classes: string[],
  name: string,
  values: Record<string, unknown>,
  links: Record<string, string[]>,
): StoredObject {
  const at = '2026-01-01T00:00:00.000Z';
  return { id, basicClass, classes, name, values, links, createdAt: at, modifiedAt: at };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = process.hrtime.bigint();
  const result = await work();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
}

async function main(): Promise<void> {
  const loaded = await loadModelRepository(new URL('../../../examples/models/crm', import.meta.url).pathname);
  if (!loaded.model) throw new Error('example model refused');
  const model = loaded.model;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-acl-bench-'));
  const store = openTenantStore({ file: path.join(dir, 'tenant.db') });
  await store.applyModel(model);
  const acl = new TenantAccessControl(model, TENANT, store);

  const persons = Array.from({ length: accounts }, (_, index) => uuid(1, index));
  const companies = Array.from({ length: anchors }, (_, index) => uuid(2, index));
  const load = await timed(async () => {
    const batch: StoredObject[] = [];
    const flush = async (): Promise<void> => {
      await store.write({ put: batch.splice(0) });
    };
    for (const [index, id] of persons.entries()) {
      batch.push(
        object(
          id,
          'crm.person',
          ['crm.person'],
          `Person ${index}`,
          { firstName: 'P', lastName: String(index) },
          {},
        ),
      );
    }
    for (const [index, id] of companies.entries()) {
      const employees = [persons[random(accounts)] ?? '', persons[random(accounts)] ?? ''];
      batch.push(
        object(
          id,
          'crm.company',
          ['crm.company', 'crm.organisation'],
          `Company ${index}`,
          { legalName: `Company ${index}`, active: true },
          {
            'crm.company#employees': [...new Set(employees)],
          },
        ),
      );
    }
    await flush();
    for (let index = 0; index < invoices; index += 1) {
      batch.push(
        object(
          uuid(3, index),
          'crm.invoice',
          ['crm.invoice'],
          `INV-${index}`,
          {
            invoiceNumber: `INV-${index}`,
            amount: index % 1000,
            vatRate: 21,
            status: 'draft',
            invoiceDate: '2026-01-01',
          },
          {
            'crm.invoice#client': [companies[random(anchors)] ?? ''],
          },
        ),
      );
      if (batch.length === 5000) await flush();
    }
    await flush();
  });

  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  const tracker = new RebuildTracker();
  const rebuild = await timed(async () => {
    acl.startRebuild(tracker);
    await tracker.settled();
  });
  clearInterval(sampler);

  const create = await timed(async () => {
    for (let index = 0; index < 100; index += 1) {
      await acl.changesFor({
        put: [
          object(
            uuid(4, index),
            'crm.invoice',
            ['crm.invoice'],
            'new',
            {},
            {
              'crm.invoice#client': [companies[random(anchors)] ?? ''],
            },
          ),
        ],
      });
    }
  });

  const member = (role: 'member' | 'viewer'): Account => ({
    kind: 'user',
    tenantId: TENANT,
    profileId: 'bench',
    role,
    extraRoles: [],
    objectId: persons[random(accounts)] ?? null,
    email: 'bench@example.test',
  });
  const page = async (plan: ListPlan, filter: AccessFilter): Promise<number> => {
    const runs = 30;
    await store.list(plan, filter);
    const { ms } = await timed(async () => {
      for (let run = 0; run < runs; run += 1) await store.list(plan, filter);
    });
    return ms / runs;
  };
  const plans: Record<string, ListPlan> = {
    invoicesDefaultOrder: { className: 'crm.invoice', filters: [], page: 0, size: 20 },
    invoicesSortedByAmount: {
      className: 'crm.invoice',
      filters: [],
      sort: { key: { kind: 'field', field: 'amount', type: 'CURRENCY' }, direction: 'desc' },
      page: 0,
      size: 20,
    },
    companies: { className: 'crm.company', filters: [], page: 0, size: 20 },
  };
  const firstPage: Record<string, Record<string, number>> = {};
  for (const [name, plan] of Object.entries(plans)) {
    firstPage[name] = {
      systemMs: await page(plan, UNRESTRICTED),
      memberMs: await page(plan, await acl.policy.accessFilter(member('member'))),
      viewerWithoutPathlessMs: await page(plan, await acl.policy.accessFilter(member('viewer'))),
    };
  }

  console.log(
    JSON.stringify(
      {
        objects: total,
        anchors,
        accounts,
        loadSeconds: load.ms / 1000,
        rebuild: {
          seconds: rebuild.ms / 1000,
          status: tracker.status(),
          peakRssMb: Math.round(peakRss / 1048576),
        },
        deriveOneCreateMs: create.ms / 100,
        firstPage,
      },
      null,
      2,
    ),
  );
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
