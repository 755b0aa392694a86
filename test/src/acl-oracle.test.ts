/**
 * The consistency oracle of record-level access control (after SpiceDB's consistency test), through
 * the real server on a generated fixture of the example CRM: for every (account, object) pair,
 *
 *   GET 200  <=>  in the list (page sizes 1, 2 and the default)  <=>  counted by aggregations
 *            <=>  in the related list of its parent  <=>  the audit names the account (a holder with
 *                 its account, or a role holding the path-less acId)
 *
 * and filters, sorts and distinct buckets on related objects never reveal an unreadable object.
 */
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

let api: DataApi;
let accounts: TestAccount[];

/** Every object of the fixture with its plural and, for invoices, its client. */
const objects = new Map<string, { plural: string; client?: string }>();
const PLURALS = ['companies', 'persons', 'invoices', 'invoiceLines', 'notes'] as const;

/** A small deterministic generator, so a failure replays. */
let seed = 7;
function random(n: number): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
function pick<T>(items: readonly T[]): T {
  const item = items[random(items.length)];
  if (item === undefined) throw new Error('empty');
  return item;
}

async function generate(): Promise<{ persons: string[]; companies: string[] }> {
  for (const id of [DEMO.ann, DEMO.bob, DEMO.carla]) objects.set(id, { plural: 'persons' });
  for (const id of [DEMO.acme, DEMO.globex]) objects.set(id, { plural: 'companies' });
  for (const [id, client] of [
    [DEMO.invoice1, DEMO.acme],
    [DEMO.invoice2, DEMO.acme],
    [DEMO.invoice3, DEMO.globex],
  ] as const) {
    objects.set(id, { plural: 'invoices', client });
  }
  for (const id of [DEMO.line1, DEMO.line2, DEMO.line3]) objects.set(id, { plural: 'invoiceLines' });

  const persons: string[] = [DEMO.ann, DEMO.bob, DEMO.carla];
  for (let index = 0; index < 6; index += 1) {
    const id = await api.create('persons', { firstName: `P${index}`, lastName: 'Generated' });
    persons.push(id);
    objects.set(id, { plural: 'persons' });
  }
  const companies: string[] = [DEMO.acme, DEMO.globex];
  for (let index = 0; index < 4; index += 1) {
    const employees = persons.filter(() => random(3) === 0).map((id) => api.href('persons', id));
    const id = await api.create('companies', { legalName: `Company ${index}`, active: true, employees });
    companies.push(id);
    objects.set(id, { plural: 'companies' });
  }
  const invoices: string[] = [];
  for (let index = 0; index < 14; index += 1) {
    const client = index < 6 ? (companies[2] ?? DEMO.acme) : pick(companies);
    const id = await api.create('invoices', {
      invoiceNumber: `G-${index}`,
      invoiceDate: '2026-04-01',
      amount: 100 + index,
      vatRate: 21,
      status: 'draft',
      client: api.href('companies', client),
    });
    invoices.push(id);
    objects.set(id, { plural: 'invoices', client });
  }
  for (let index = 0; index < 10; index += 1) {
    const id = await api.create('invoiceLines', {
      description: `L${index}`,
      quantity: 1,
      unitPrice: 5,
      invoice: api.href('invoices', pick(invoices)),
    });
    objects.set(id, { plural: 'invoiceLines' });
  }
  for (let index = 0; index < 6; index += 1) {
    const linked = persons.filter(() => random(4) === 0).map((id) => api.href('persons', id));
    const id = await api.create('notes', { subject: `N${index}`, persons: linked });
    objects.set(id, { plural: 'notes' });
  }
  return { persons, companies };
}

beforeAll(async () => {
  api = await startDataServer();
  const { persons } = await generate();
  accounts = [
    ...(
      await createAccounts(api, [
        { name: 'ann', role: 'member', objectId: DEMO.ann },
        { name: 'bob', role: 'viewer', objectId: DEMO.bob },
        { name: 'carla', role: 'member', extraRoles: ['accountant'], objectId: DEMO.carla },
        {
          name: 'viewer-accountant',
          role: 'viewer',
          extraRoles: ['accountant'],
          objectId: persons[3] ?? null,
        },
        { name: 'p4', role: 'member', objectId: persons[4] ?? null },
        { name: 'unlinked', role: 'member' },
        { name: 'admin', role: 'admin' },
      ])
    ).values(),
  ];
}, 180_000);
afterAll(async () => {
  await api?.server.stop();
});

/** Every id of a list, paging with `size` (absent: the default size) until a short page. */
async function listAll(route: string, key: string, size?: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page += 1) {
    const query = `page=${page}${size === undefined ? '' : `&size=${size}`}`;
    const rows = await api.rows(`${route}${route.includes('?') ? '&' : '?'}${query}`, key);
    ids.push(...rows.map(idOf));
    if (rows.length < (size ?? 20)) return ids;
  }
}

const sorted = (ids: Iterable<string>): string[] => [...ids].sort();

describe('the consistency oracle', () => {
  it('GET 200 <=> listed (sizes 1, 2, default) <=> counted <=> in the related list <=> named by the audit', async () => {
    const audits = new Map<string, Json>();
    for (const [id, { plural }] of objects) {
      const res = await fetch(`${api.server.baseUrl}/audit/${api.tenant}/${plural}/${id}/access`, {
        headers: { 'X-API-Key': api.systemKey },
      });
      expect(res.status).toBe(200);
      audits.set(id, (await res.json()) as Json);
    }
    for (const account of accounts) {
      const roles = [account.role, ...account.extraRoles];
      const readable = new Set<string>();
      const named = new Set<string>();
      for (const [id, { plural }] of objects) {
        const status = (await api.call('GET', `/${plural}/${id}`, { key: account.key })).status;
        expect({ account: account.name, id, status: [200, 404].includes(status) }).toEqual({
          account: account.name,
          id,
          status: true,
        });
        if (status === 200) readable.add(id);
        const grants = ((audits.get(id)?.['grants'] ?? []) as Json[]).filter((grant) => {
          const holders = grant['holders'] as Json[] | undefined;
          return holders
            ? holders.some((holder) => holder['accountId'] === account.profileId)
            : (grant['roles'] as Json[]).some((role) => roles.includes(String(role['role'])));
        });
        if (grants.length > 0) named.add(id);
      }
      expect({ account: account.name, named: sorted(named) }).toEqual({
        account: account.name,
        named: sorted(readable),
      });

      for (const plural of PLURALS) {
        const expected = sorted([...readable].filter((id) => objects.get(id)?.plural === plural));
        for (const size of [1, 2, undefined]) {
          const listed = await listAll(`/${plural}`, account.key, size);
          expect({ account: account.name, plural, size, listed: sorted(listed) }).toEqual({
            account: account.name,
            plural,
            size,
            listed: expected,
          });
          expect(new Set(listed).size).toBe(listed.length);
        }
        const totals = await api.get(`/${plural}/aggregations`, account.key);
        expect({ account: account.name, plural, total: totals['total'] }).toEqual({
          account: account.name,
          plural,
          total: expected.length,
        });
      }

      for (const [company, { plural }] of objects) {
        if (plural !== 'companies' || !readable.has(company)) continue;
        const expected = sorted(
          [...objects]
            .filter(([id, object]) => object.client === company && readable.has(id))
            .map(([id]) => id),
        );
        const related = await listAll(`/companies/${company}/invoices`, account.key, 2);
        expect({ account: account.name, company, related: sorted(related) }).toEqual({
          account: account.name,
          company,
          related: expected,
        });
      }
    }
  }, 180_000);
});

describe('related fields never reveal an unreadable object', () => {
  const ann = (): TestAccount => {
    const account = accounts.find((candidate) => candidate.name === 'ann');
    if (!account) throw new Error('no ann');
    return account;
  };

  it('a filter on the name of an unreadable related object matches nothing', async () => {
    expect(await listAll('/invoices?client=Globex NV', api.systemKey)).toEqual([DEMO.invoice3]);
    expect(await listAll('/invoices?client=Globex NV', ann().key)).toEqual([]);
    expect(await listAll('/invoices?client.name=Globex NV', ann().key)).toEqual([]);
    expect(await listAll('/invoices?client_startswith=Glob', ann().key)).toEqual([]);
  });

  it('a filter on the id of an unreadable related object matches nothing', async () => {
    expect(await listAll(`/invoices?client_href=${DEMO.globex}`, ann().key)).toEqual([]);
  });

  it('a sort on a related name orders an unreadable related object as an empty value', async () => {
    const invoices = [DEMO.invoice1, DEMO.invoice2, DEMO.invoice3];
    const only = (ids: string[]): string[] =>
      ids.filter((id) => invoices.includes(id as (typeof invoices)[number]));
    const ascending = only(await listAll('/invoices?sort=client', ann().key, 100));
    const descending = only(await listAll('/invoices?sort=client,desc', ann().key, 100));
    const system = only(await listAll('/invoices?sort=client', api.systemKey, 100));
    expect(system.indexOf(DEMO.invoice3)).toBeGreaterThan(system.indexOf(DEMO.invoice1));
    expect(ascending.indexOf(DEMO.invoice3)).toBeLessThan(ascending.indexOf(DEMO.invoice1));
    expect(descending.indexOf(DEMO.invoice3)).toBeGreaterThan(descending.indexOf(DEMO.invoice1));
  });

  it('distinct relation buckets never name an unreadable related object', async () => {
    const { values } = await api.get<{ values: { value: Json | null; count: number }[] }>(
      '/invoices/distinct?distinct=client',
      ann().key,
    );
    const names = values.map((bucket) => (bucket.value === null ? null : bucket.value['name']));
    expect(names).not.toContain('Globex NV');
  });

  it('_links of a readable object never name an unreadable related object', async () => {
    const invoice = await api.get(`/invoices/${DEMO.invoice3}`, ann().key);
    expect(JSON.stringify(invoice['_links'])).not.toContain('Globex NV');
  });
});

describe('a wide fan-out: one company anchoring 300 invoices', () => {
  it('granting and revoking its employee takes effect on the very next request', async () => {
    const bob = accounts.find((candidate) => candidate.name === 'bob');
    if (!bob) throw new Error('no bob');
    const wide = await api.create('companies', { legalName: 'Wide BV', active: true });
    for (let index = 0; index < 300; index += 1) {
      await api.create('invoices', {
        invoiceNumber: `W-${index}`,
        invoiceDate: '2026-05-01',
        amount: index,
        vatRate: 21,
        status: 'draft',
        client: api.href('companies', wide),
      });
    }
    const total = async (): Promise<unknown> =>
      (await api.get(`/companies/${wide}/invoices/aggregations`, api.systemKey))['total'];
    expect(await total()).toBe(300);
    const visibleToBob = async (): Promise<unknown> =>
      (await api.get('/invoices/aggregations?invoiceNumber_startswith=W-', bob.key))['total'];
    expect(await visibleToBob()).toBe(0);
    const grant = await api.call('PATCH', `/companies/${wide}`, {
      body: { employees: [api.href('persons', DEMO.bob)] },
    });
    expect(grant.status).toBe(204);
    expect(await visibleToBob()).toBe(300);
    expect((await api.call('GET', `/companies/${wide}`, { key: bob.key })).status).toBe(200);
    expect((await api.call('PATCH', `/companies/${wide}`, { body: { employees: [] } })).status).toBe(204);
    expect(await visibleToBob()).toBe(0);
    expect((await api.call('GET', `/companies/${wide}`, { key: bob.key })).status).toBe(404);
  }, 60_000);
});
