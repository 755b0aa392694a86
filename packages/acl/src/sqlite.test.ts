/**
 * Access control on the example CRM model as the model loader resolves it, over the real SQLite
 * tenant store: stored rows and holdings, the read filter compiled into SQL queries, revocation on
 * the next read, link counts and rebuild.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UNRESTRICTED } from '@odp/core';
import type { AccessFilter, Model, StoredObject, WriteBatch } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteTenantStore } from '@odp/store-sqlite';
import { RebuildTracker } from './jobs.js';
import { crmFixture, user } from '../test/crm-fixture.js';
import { storedObject } from '../test/memory-store.js';
import type { CrmFixture } from '../test/crm-fixture.js';

const EXAMPLE = path.resolve(__dirname, '../../../examples/models/crm');

let model: Model;
let dir: string;
let fixture: CrmFixture<SqliteTenantStore>;

beforeAll(async () => {
  const loaded = await loadModelRepository(EXAMPLE);
  if (!loaded.model) throw new Error(`example model refused: ${JSON.stringify(loaded.issues)}`);
  model = loaded.model;
});

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-acl-'));
  // A bound of a write turn no test reaches, however busy the machine: the writes queued together
  // share a turn (and a transaction) whatever their derivations take.
  const store = openSqliteTenantStore({ file: path.join(dir, 'tenant.db'), maxTurnMs: 60_000 });
  await store.applyModel(model);
  fixture = await crmFixture(model, store);
});

afterEach(async () => {
  await fixture.store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function visibleIds(className: string, filter: AccessFilter): Promise<string[]> {
  const rows = await fixture.store.list({ className, filters: [], page: 0, size: 100 }, filter);
  return rows.map((object: StoredObject) => object.id).sort();
}

describe('access control on the example model over SQLite', () => {
  it('stores the derived rows: an invoice line carries its company grant and the path-less grant', async () => {
    const rows = await fixture.store.aclRowsOf('l1');
    expect(rows.map((row) => `${row.definition}/${row.nodeId}`).sort()).toEqual([
      'companyTeam/n-lines',
      'everything/n-all-lines',
    ]);
  });

  it('the read filter restricts lists, aggregations and distinct inside the query', async () => {
    const ann = await fixture.acl.policy.accessFilter(user('member', 'ann'));
    expect(await visibleIds('crm.invoiceLine', ann)).toEqual(['l1', 'l2']);
    expect(await visibleIds('crm.organisation', ann)).toEqual(['acme']);
    expect(await visibleIds('crm.invoice', ann)).toEqual(['inv1', 'inv2', 'inv3']);
    expect(await visibleIds('crm.person', ann)).toEqual(['ann']);
    const total = await fixture.store.aggregate(
      { className: 'crm.invoiceLine', filters: [], sum: [], avg: [], count: [] },
      ann,
    );
    expect(total.total).toBe(2);
    const buckets = await fixture.store.distinct(
      {
        className: 'crm.invoiceLine',
        filters: [],
        target: { kind: 'relation', relation: { key: 'crm.invoiceLine#invoice', direction: 'forward' } },
        order: 'value',
      },
      ann,
    );
    expect(buckets.map((bucket) => [bucket.value, bucket.count])).toEqual([['inv1', 2]]);
    const admin = await fixture.acl.policy.accessFilter(user('admin', null));
    expect(await visibleIds('crm.invoiceLine', admin)).toEqual(['l1', 'l2', 'l3']);
  });

  it('a removed employee loses the company on the very next read', async () => {
    const bob = user('viewer', 'bob');
    expect(await visibleIds('crm.company', await fixture.acl.policy.accessFilter(bob))).toEqual(['acme']);
    const acme = fixture.object('acme');
    await fixture.acl.write({
      put: [{ ...acme, links: { ...acme.links, 'crm.company#employees': ['ann'] } }],
    });
    expect(await visibleIds('crm.company', await fixture.acl.policy.accessFilter(bob))).toEqual([]);
    expect(await visibleIds('crm.invoiceLine', await fixture.acl.policy.accessFilter(bob))).toEqual([]);
  });

  it('the definition report counts stored links per relation pair, and a rebuild keeps the state', async () => {
    const report = await fixture.acl.accessControlReport();
    const team = report.definitions.find((definition) => definition.name === 'companyTeam');
    expect(team?.grantToUsers).toEqual([
      { id: 'st-emp', relation: 'employees', from: 'crm.company', to: 'crm.person', count: 3 },
    ]);
    expect(team?.nodes.find((node) => node.id === 'n-lines')?.relations.map((pair) => pair.count)).toEqual([
      3, 3,
    ]);
    expect(report.orphanedNodeIds).toEqual([]);
    expect(report.orphanedStepIds).toEqual([]);

    const before = await fixture.store.aclRowsOf('d1');
    const tracker = new RebuildTracker();
    fixture.acl.startRebuild(tracker);
    await tracker.settled();
    expect(tracker.status()).toMatchObject({ state: 'done', processed: 13 });
    expect((await fixture.store.aclRowsOf('d1')).sort((a, b) => (a.acId < b.acId ? -1 : 1))).toEqual(
      before.sort((a, b) => (a.acId < b.acId ? -1 : 1)),
    );
  });

  it('an object whose ACL rows a write re-derives gets an update event, though its values did not change', async () => {
    const line = fixture.object('l3');
    const invoiceId = line.links['crm.invoiceLine#invoice']?.[0] ?? '';
    const invoice = fixture.object(invoiceId);
    const before = await fixture.store.aclRowsOf('l3');
    const head = await fixture.store.events.head();
    await fixture.acl.write({
      put: [{ ...invoice, links: { ...invoice.links, 'crm.invoice#client': ['acme'] } }],
      events: [
        { type: 'update', objectId: invoiceId, classes: invoice.classes, at: '2031-01-01T00:00:00.000Z' },
      ],
    });
    expect(await fixture.store.aclRowsOf('l3')).not.toEqual(before);
    const { events } = await fixture.store.events.read(head, 100);
    expect(events.map((event) => [event.type, event.objectId])).toEqual(
      expect.arrayContaining([
        ['update', invoiceId],
        ['update', 'l3'],
      ]),
    );
    expect(events.find((event) => event.objectId === 'l3')?.classes).toEqual(line.classes);
    // Who may read it changed, none of its fields: the event says so with an empty list.
    expect(events.find((event) => event.objectId === 'l3')?.changed).toEqual([]);
    // Objects whose rows stay the same get no event: a second identical write adds only its own.
    const again = await fixture.store.events.head();
    await fixture.acl.write({
      put: [{ ...invoice, links: { ...invoice.links, 'crm.invoice#client': ['acme'] } }],
      events: [
        { type: 'update', objectId: invoiceId, classes: invoice.classes, at: '2031-01-01T00:00:01.000Z' },
      ],
    });
    expect((await fixture.store.events.read(again, 100)).events.map((event) => event.objectId)).toEqual([
      invoiceId,
    ]);
  });

  it('derives a write from the state the previous one applied, before that one is committed', async () => {
    const o = (id: string, cls: string, links: Record<string, readonly string[]>) =>
      storedObject(model, id, cls, links);
    const invoice = o('inv4', 'crm.invoice', { 'crm.invoice#client': ['acme'] });
    const line = o('l4', 'crm.invoiceLine', { 'crm.invoiceLine#invoice': ['inv4'] });
    // Whether the write before had committed when each write was applied.
    const previousCommitted: boolean[] = [];
    let committed = true;
    const apply = async (complete: WriteBatch) => {
      previousCommitted.push(committed);
      const applied = await fixture.store.applyWrite(complete);
      committed = false;
      void applied.committed.then(() => (committed = true));
      return applied;
    };
    await Promise.all([
      fixture.acl.writeWithAccessRows({ put: [invoice] }, apply),
      fixture.acl.writeWithAccessRows({ put: [line] }, apply),
    ]);
    expect(previousCommitted).toEqual([true, false]);
    // The line's grant through its invoice's company needed the invoice, applied but not committed.
    expect(
      (await fixture.store.aclRowsOf('l4')).map((row) => `${row.definition}/${row.nodeId}`).sort(),
    ).toEqual(['companyTeam/n-lines', 'everything/n-all-lines']);
    // Both resolved once committed: another connection to the file reads them.
    const other = openSqliteTenantStore({ file: path.join(dir, 'tenant.db') });
    try {
      await other.applyModel(model);
      expect((await other.aclRowsOf('l4')).length).toBe(2);
      expect((await other.getMany(['inv4', 'l4'], UNRESTRICTED)).map((object) => object.id).sort()).toEqual([
        'inv4',
        'l4',
      ]);
    } finally {
      await other.close();
    }
  });
});
