import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNRESTRICTED } from '@odp/core';
import type { AclRow } from '@odp/core';
import { LoopTurns, REL, contractModel, storedObject, uuid } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-batch-writer-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (acId: string): AclRow => ({ acId, nodeId: `node-${acId}`, definition: 'owner' });
const acme = storedObject({ n: 1, basicClass: 'ct.company', name: 'Acme' });
const globex = storedObject({ n: 2, basicClass: 'ct.company', name: 'Globex' });

async function opened(): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: join(dir, `tenant-${++counter}.db`) });
  await store.applyModel(contractModel);
  await store.write({ put: [acme, globex] });
  return store;
}

// An object the batch inserts has nothing stored, so its links and ACL rows are written without
// reading stored ones first; a batch putting the same new object twice still ends with the last.
describe('a batch inserting objects', () => {
  it('keeps the last put and ACL rows of a new object it lists twice', async () => {
    const store = await opened();
    const first = storedObject({ n: 3, basicClass: 'ct.invoice', links: { [REL.client]: [1] } });
    const second = storedObject({ n: 3, basicClass: 'ct.invoice', links: { [REL.client]: [2] } });
    await store.write({
      put: [first, second],
      aclRows: [
        { objectId: first.id, rows: [row('A'), row('B')] },
        { objectId: first.id, rows: [row('B'), row('C')] },
      ],
    });
    expect((await store.get(uuid(3), UNRESTRICTED))?.links).toEqual({ [REL.client]: [globex.id] });
    expect(await store.linksTo(acme.id)).toEqual([]);
    expect(await store.linksTo(globex.id)).toEqual([{ sourceId: uuid(3), relationKey: REL.client }]);
    expect(await store.aclRowsOf(uuid(3))).toEqual([row('B'), row('C')]);
    await store.close();
  });

  it('stores nothing of a new object it also deletes', async () => {
    const store = await opened();
    const invoice = storedObject({ n: 3, basicClass: 'ct.invoice', links: { [REL.client]: [1] } });
    await store.write({
      put: [invoice],
      delete: [invoice.id],
      aclRows: [{ objectId: invoice.id, rows: [row('A')] }],
    });
    expect(await store.get(invoice.id, UNRESTRICTED)).toBeNull();
    expect(await store.linksTo(acme.id)).toEqual([]);
    expect(await store.aclRowsOf(invoice.id)).toEqual([]);
    await store.close();
  });

  it('links new objects to each other and to stored ones, and updates them as stored ones after', async () => {
    const store = await opened();
    const person = storedObject({ n: 4, basicClass: 'ct.person', links: { [REL.employer]: [5] } });
    const company = storedObject({ n: 5, basicClass: 'ct.company', name: 'Initech' });
    await store.write({ put: [person, company], aclRows: [{ objectId: person.id, rows: [row('A')] }] });
    expect(await store.linksTo(company.id)).toEqual([{ sourceId: person.id, relationKey: REL.employer }]);
    await store.write({
      put: [{ ...person, links: { [REL.employer]: [acme.id] } }],
      aclRows: [{ objectId: person.id, rows: [row('B')] }],
    });
    expect(await store.linksTo(company.id)).toEqual([]);
    expect(await store.linksTo(acme.id)).toEqual([{ sourceId: person.id, relationKey: REL.employer }]);
    expect(await store.aclRowsOf(person.id)).toEqual([row('B')]);
    await store.close();
  });
});

// A large value is serialised before the write's transaction, in slices of the event loop, so the
// transaction holds the loop for its statements alone; what is stored is the value as written.
describe('a batch with a large value', () => {
  it('serialises it in slices of the event loop and stores it whole', async () => {
    const store = await opened();
    // 8,000,000 characters with surrogate pairs and escapes throughout, so pieces end everywhere.
    const notes = 'a note \u{1F600} "quoted" \\ naïve\n'.repeat(250_000);
    const settings = {
      rows: Array.from({ length: 2_000 }, (_, index) => ({ index, text: notes.slice(0, 100) })),
    };
    const company = storedObject({
      n: 6,
      basicClass: 'ct.company',
      values: { notes, settings, tags: ['x', notes] },
    });
    const turns = new LoopTurns();
    await store.write({ put: [company] });
    turns.stop();
    // JSON.stringify of the value whole, the way the transaction serialised it before, took tens
    // of milliseconds of one turn; in slices of a millisecond the loop turns many times meanwhile.
    expect(turns.count).toBeGreaterThan(2);
    const stored = await store.get(company.id, UNRESTRICTED);
    expect(stored?.values).toEqual({ notes, settings, tags: ['x', notes] });
    await store.close();
  });
});
