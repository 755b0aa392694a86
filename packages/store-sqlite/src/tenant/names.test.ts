import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNRESTRICTED } from '@odp/core';
import type { AccessFilter, IncomingRef } from '@odp/core';
import { REL, contractModel, storedObject, uuid } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';
import type { SqliteTenantStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const company = (n: number, name: string) => storedObject({ n, basicClass: 'ct.company', name });
const invoice = (n: number, name: string) =>
  storedObject({ n, basicClass: 'ct.invoice', name, links: { [REL.client]: [1] } });

async function linkerNames(store: SqliteTenantStore): Promise<(string | null)[]> {
  const refs = await store.incomingRefs([uuid(1)], UNRESTRICTED, { relationKeys: [REL.client], limit: 20 });
  return refs.map((ref) => ref.name);
}

/** A store on a new file, with the model applied. */
async function newStore(name: string): Promise<SqliteTenantStore> {
  const store = openSqliteTenantStore({ file: join(dir, name) });
  await store.applyModel(contractModel);
  return store;
}

/** Two stores on the same file: this api process and another one. */
async function twoConnections(
  name: string,
): Promise<{ here: SqliteTenantStore; elsewhere: SqliteTenantStore }> {
  const file = join(dir, name);
  const here = openSqliteTenantStore({ file });
  const elsewhere = openSqliteTenantStore({ file });
  await here.applyModel(contractModel);
  await elsewhere.applyModel(contractModel);
  return { here, elsewhere };
}

// The references of linking objects are remembered between reads, and forgotten once a write
// through any connection (this store, another api process) changed or deleted a stored object.
describe('remembered references of linking objects', () => {
  it('follows renames and deletes made through this store and through another connection', async () => {
    const { here, elsewhere } = await twoConnections('tenant.db');
    await here.write({
      put: [company(1, 'Acme'), invoice(2, 'Invoice 2'), invoice(3, 'Invoice 3'), invoice(4, 'Invoice 4')],
    });
    expect(await linkerNames(here)).toEqual(['Invoice 2', 'Invoice 3', 'Invoice 4']);

    await here.write({ put: [invoice(2, 'Renamed here')] });
    expect(await linkerNames(here)).toEqual(['Renamed here', 'Invoice 3', 'Invoice 4']);

    await elsewhere.write({ put: [invoice(3, 'Renamed elsewhere')] });
    expect(await linkerNames(here)).toEqual(['Renamed here', 'Renamed elsewhere', 'Invoice 4']);

    await elsewhere.write({ delete: [uuid(4)] });
    await here.write({ put: [invoice(5, 'Invoice 5')] });
    expect(await linkerNames(here)).toEqual(['Renamed here', 'Renamed elsewhere', 'Invoice 5']);
    await here.close();
    await elsewhere.close();
  });
});

// The bounded ranges of linkers are remembered while nothing is written, and forgotten once a write
// through this store or a commit of another connection may have changed them.
describe('remembered ranges of linkers', () => {
  it('follows links added and removed through this store and through another connection', async () => {
    const { here, elsewhere } = await twoConnections('ranges.db');
    await here.write({
      put: [company(1, 'Acme'), company(9, 'Other'), invoice(2, 'Invoice 2'), invoice(3, 'Invoice 3')],
    });
    expect(await linkerNames(here)).toEqual(['Invoice 2', 'Invoice 3']);
    expect(await linkerNames(here)).toEqual(['Invoice 2', 'Invoice 3']);

    await elsewhere.write({ put: [invoice(4, 'Invoice 4')] });
    expect(await linkerNames(here)).toEqual(['Invoice 2', 'Invoice 3', 'Invoice 4']);

    await here.write({
      put: [
        storedObject({ n: 2, basicClass: 'ct.invoice', name: 'Invoice 2', links: { [REL.client]: [9] } }),
      ],
    });
    expect(await linkerNames(here)).toEqual(['Invoice 3', 'Invoice 4']);

    await elsewhere.write({ put: [invoice(5, 'Invoice 5')] });
    await here.write({ put: [invoice(6, 'Invoice 6')] });
    expect(await linkerNames(here)).toEqual(['Invoice 3', 'Invoice 4', 'Invoice 5', 'Invoice 6']);
    await here.close();
    await elsewhere.close();
  });
});

// The references of linked objects an unrestricted reader renders are remembered between reads,
// and forgotten once a write through this store or a commit of another connection may have changed
// them; a restricted reader's are read under its access filter every time.
describe('remembered references of linked objects', () => {
  const namesOf = async (store: SqliteTenantStore, access: AccessFilter = UNRESTRICTED) =>
    (await store.refsOf([uuid(1), uuid(2), uuid(9)], access)).map((ref) => ref.name).sort();

  it('follows renames and deletes made through this store and through another connection', async () => {
    const { here, elsewhere } = await twoConnections('linked.db');
    await here.write({ put: [company(1, 'Acme'), company(2, 'Globex')] });
    const first = await here.refsOf([uuid(1)], UNRESTRICTED);
    expect(first.map((ref) => ref.name)).toEqual(['Acme']);
    // The same reference again, from memory.
    expect((await here.refsOf([uuid(1)], UNRESTRICTED))[0]).toBe(first[0]);
    expect(await namesOf(here)).toEqual(['Acme', 'Globex']);

    await here.write({ put: [company(1, 'Acme here')] });
    expect(await namesOf(here)).toEqual(['Acme here', 'Globex']);

    await elsewhere.write({ put: [company(2, 'Globex elsewhere')] });
    expect(await namesOf(here)).toEqual(['Acme here', 'Globex elsewhere']);

    await elsewhere.write({ put: [company(9, 'Initech')] });
    expect(await namesOf(here)).toEqual(['Acme here', 'Globex elsewhere', 'Initech']);

    await elsewhere.write({ delete: [uuid(1)] });
    expect(await namesOf(here)).toEqual(['Globex elsewhere', 'Initech']);
    await here.close();
    await elsewhere.close();
  });

  it('does not answer a restricted reader from what an unrestricted one read', async () => {
    const store = await newStore('linked-readers.db');
    await store.write({
      put: [invoice(1, 'Invoice 1'), invoice(2, 'Invoice 2')],
      aclRows: [{ objectId: uuid(1), rows: [{ acId: 'A', nodeId: uuid(1), definition: 'owner' }] }],
    });
    const holdingA: AccessFilter = { kind: 'acl', protectedClasses: ['ct.invoice'], acIds: ['A'] };
    for (let round = 0; round < 2; round += 1) {
      expect(await namesOf(store)).toEqual(['Invoice 1', 'Invoice 2']);
      expect(await namesOf(store, holdingA)).toEqual(['Invoice 1']);
    }
    await store.close();
  });
});

// A relation nothing links through yet is remembered as such, and looked up again once a write
// through this store or a commit of another connection may have stored the first link through it.
describe('remembered relations no link was stored through', () => {
  const acme = company(1, 'Acme');

  it('renders the first link stored through another connection', async () => {
    const { here, elsewhere } = await twoConnections('unstored-elsewhere.db');
    await here.write({ put: [acme] });
    expect(await linkerNames(here)).toEqual([]);
    expect(await linkerNames(here)).toEqual([]);

    await elsewhere.write({ put: [invoice(2, 'Invoice 2')] });
    expect(await linkerNames(here)).toEqual(['Invoice 2']);
    await here.close();
    await elsewhere.close();
  });

  it('renders the first link stored through this store', async () => {
    const { here, elsewhere } = await twoConnections('unstored-here.db');
    await elsewhere.write({ put: [acme] });
    expect(await linkerNames(here)).toEqual([]);

    await here.write({ put: [invoice(2, 'Invoice 2')] });
    expect(await linkerNames(here)).toEqual(['Invoice 2']);
    await here.close();
    await elsewhere.close();
  });
});

describe('remembered ranges of linkers, per reader', () => {
  it('keeps the linkers each reader may see apart', async () => {
    const store = await newStore('readers.db');
    await store.write({
      put: [company(1, 'Acme'), invoice(2, 'Invoice 2'), invoice(3, 'Invoice 3')],
      aclRows: [{ objectId: uuid(2), rows: [{ acId: 'A', nodeId: uuid(2), definition: 'owner' }] }],
    });
    const holdingA: AccessFilter = { kind: 'acl', protectedClasses: ['ct.invoice'], acIds: ['A'] };
    const names = async (access: AccessFilter) =>
      (await store.incomingRefs([uuid(1)], access, { relationKeys: [REL.client], limit: 20 })).map(
        (ref) => ref.name,
      );
    for (let round = 0; round < 2; round += 1) {
      expect(await names(UNRESTRICTED)).toEqual(['Invoice 2', 'Invoice 3']);
      expect(await names(holdingA)).toEqual(['Invoice 2']);
    }
    await store.close();
  });
});

describe('bounded linkers of several objects', () => {
  it('reads at most `limit` linkers per object and relation, in creation order, grouped by object', async () => {
    const store = await newStore('bounded.db');
    const person = (n: number, employer: number) =>
      storedObject({
        n,
        basicClass: 'ct.person',
        name: `Person ${n}`,
        links: { [REL.employer]: [employer] },
      });
    const billed = (n: number, client: number) =>
      storedObject({ n, basicClass: 'ct.invoice', name: `Invoice ${n}`, links: { [REL.client]: [client] } });
    await store.write({
      put: [
        company(1, 'Acme'),
        company(2, 'Globex'),
        billed(3, 1),
        billed(4, 2),
        billed(5, 1),
        billed(6, 1),
        person(7, 1),
        person(8, 2),
        person(9, 1),
        person(10, 1),
      ],
    });
    const refs = await store.incomingRefs([uuid(2), uuid(1)], UNRESTRICTED, {
      relationKeys: [REL.client, REL.employer],
      limit: 2,
    });
    const linkers = (target: number, relationKey: string) =>
      refs
        .filter((ref) => ref.targetId === uuid(target) && ref.relationKey === relationKey)
        .map((ref) => ref.name);
    expect(linkers(1, REL.client)).toEqual(['Invoice 3', 'Invoice 5']);
    expect(linkers(1, REL.employer)).toEqual(['Person 7', 'Person 9']);
    expect(linkers(2, REL.client)).toEqual(['Invoice 4']);
    expect(linkers(2, REL.employer)).toEqual(['Person 8']);
    expect(refs.map((ref) => ref.targetId)).toEqual([uuid(1), uuid(1), uuid(1), uuid(1), uuid(2), uuid(2)]);
    await store.close();
  });
});

// A page's linkers, once read outside a write, are answered from memory (the same references)
// until anything is written; a page with a target not read before is read whole.
describe('remembered linkers of a page', () => {
  it('answers a bounded read again from memory, targets in key order, until anything is written', async () => {
    const store = await newStore('pages.db');
    await store.write({
      put: [
        company(1, 'Acme'),
        company(2, 'Globex'),
        invoice(3, 'Invoice 3'),
        storedObject({ n: 4, basicClass: 'ct.invoice', name: 'Invoice 4', links: { [REL.client]: [2] } }),
        invoice(5, 'Invoice 5'),
      ],
    });
    const read = (ids: string[]) =>
      store.incomingRefs(ids, UNRESTRICTED, { relationKeys: [REL.client], limit: 20 });
    const seen = (refs: readonly IncomingRef[]) => refs.map((ref) => `${ref.targetId} ${ref.name}`);

    const one = await read([uuid(1)]);
    expect(seen(one)).toEqual([`${uuid(1)} Invoice 3`, `${uuid(1)} Invoice 5`]);
    const page = await read([uuid(2), uuid(1)]);
    const expected = [`${uuid(1)} Invoice 3`, `${uuid(1)} Invoice 5`, `${uuid(2)} Invoice 4`];
    expect(seen(page)).toEqual(expected);
    const again = await read([uuid(2), uuid(1), uuid(2)]);
    expect(seen(again)).toEqual(expected);
    again.forEach((ref, index) => expect(ref).toBe(page[index]));

    await store.write({ put: [invoice(6, 'Invoice 6')] });
    const after = await read([uuid(2), uuid(1)]);
    expect(seen(after)).toEqual([...expected.slice(0, 2), `${uuid(1)} Invoice 6`, `${uuid(2)} Invoice 4`]);
    expect(after[0]).not.toBe(page[0]);
    await store.close();
  });
});
