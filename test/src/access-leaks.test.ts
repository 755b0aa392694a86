/**
 * Information leaks past record-level access control (docs/access-control.md, "Formulas over
 * relations" and "System classes"), through the real server on the demo tenant:
 *
 * - a formula over a relation path (`invoice.clientName = client.legalName`, `invoice.linesTotal =
 *   sum(lines.amount)`) must not carry a value of an object the reader may not read: neither the
 *   rendered object, nor filters, sorts, distinct, values, aggregations or search reveal it;
 * - the system classes are reachable only under `/system/...`: never through `/data/...` (lists,
 *   reads, writes, distinct, values, aggregations, capabilities, search), the metadata of data
 *   classes or the audit, whatever the credential.
 *
 * Ann (member) is an employee of Acme, not of Globex: she gets 404 on Globex and on its invoice's
 * line, but reads every invoice (the path-less `allInvoices`), including Globex's invoice 3.
 */
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

let api: DataApi;
let ann: TestAccount;
let viewer: TestAccount;
let admin: TestAccount;
let secretId: string;

beforeAll(async () => {
  api = await startDataServer();
  const accounts = await createAccounts(api, [
    { name: 'ann', role: 'member', objectId: DEMO.ann },
    { name: 'bob-viewer', role: 'viewer', objectId: DEMO.bob },
    { name: 'admin', role: 'admin' },
  ]);
  ann = accounts.get('ann') as TestAccount;
  viewer = accounts.get('bob-viewer') as TestAccount;
  admin = accounts.get('admin') as TestAccount;
  const stored = await fetch(`${api.server.baseUrl}/system/${api.tenant}/secretValues`, {
    method: 'POST',
    headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'globexApiToken', secretValue: 's3cr3t-value' }),
  });
  if (stored.status !== 201) throw new Error(`secretValues: ${stored.status} ${await stored.text()}`);
  secretId = (stored.headers.get('location') ?? '').slice(-36);
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

const invoiceIds = (rows: readonly Json[]): string[] => rows.map(idOf);

describe('formulas over relations never carry values of objects the reader may not read', () => {
  it('precondition: Ann gets 404 on Globex and on the line of its invoice, 200 on the invoice', async () => {
    expect((await api.call('GET', `/companies/${DEMO.globex}`, { key: ann.key })).status).toBe(404);
    expect((await api.call('GET', `/invoiceLines/${DEMO.line3}`, { key: ann.key })).status).toBe(404);
    expect((await api.call('GET', `/invoices/${DEMO.invoice3}`, { key: ann.key })).status).toBe(200);
    const full = await api.get(`/invoices/${DEMO.invoice3}`);
    expect(full['clientName']).toBe('Globex NV');
    expect(full['linesTotal']).toBe(4200);
  });

  it('reading the object: the derived value is left out, a readable source still shows', async () => {
    const invoice = await api.get(`/invoices/${DEMO.invoice3}`, ann.key);
    expect(invoice).not.toHaveProperty('clientName');
    expect(invoice).not.toHaveProperty('linesTotal');
    expect(JSON.stringify(invoice)).not.toContain('Globex');
    expect(invoice['invoiceNumber']).toBe('2026-0003');
    const own = await api.get(`/invoices/${DEMO.invoice1}`, ann.key);
    expect(own['clientName']).toBe('Acme BV');
    expect(own['linesTotal']).toBe(1000);
    const listed = await api.rows('/invoices?size=100', ann.key);
    const row = listed.find((object) => idOf(object) === DEMO.invoice3);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain('Globex');
  });

  it('filtering on the derived value (equals, prefix, not-empty, range) does not match through it', async () => {
    expect(invoiceIds(await api.rows('/invoices?clientName=Globex%20NV'))).toEqual([DEMO.invoice3]);
    expect(await api.rows('/invoices?clientName=Globex%20NV', ann.key)).toEqual([]);
    expect(await api.rows('/invoices?clientName_startswith=Glo', ann.key)).toEqual([]);
    expect(invoiceIds(await api.rows('/invoices?clientName_notempty=true', ann.key))).not.toContain(
      DEMO.invoice3,
    );
    expect(invoiceIds(await api.rows('/invoices?linesTotal_from=4000', ann.key))).toEqual([]);
  });

  it('sorting on the derived value orders it as empty', async () => {
    const ascending = invoiceIds(await api.rows('/invoices?sort=clientName&size=100', ann.key));
    const descending = invoiceIds(await api.rows('/invoices?sort=clientName,desc&size=100', ann.key));
    expect(ascending[0]).toBe(DEMO.invoice3);
    expect(descending.at(-1)).toBe(DEMO.invoice3);
    // With the value readable, "Globex NV" sorts after "Acme BV".
    expect(invoiceIds(await api.rows('/invoices?sort=clientName&size=100')).at(-1)).toBe(DEMO.invoice3);
  });

  it('distinct counts it as empty (no bucket of a field counts empty values)', async () => {
    const distinct = (key?: string) =>
      api.get<{ values: { value: unknown; count: number }[] }>('/invoices/distinct?distinct=clientName', key);
    expect((await distinct()).values).toEqual([
      { value: 'Acme BV', count: 2 },
      { value: 'Globex NV', count: 1 },
    ]);
    expect((await distinct(ann.key)).values).toEqual([{ value: 'Acme BV', count: 2 }]);
  });

  it('field values leave it out', async () => {
    const values = await api.get<{ value: unknown; link: string }[]>('/invoices/values/clientName', ann.key);
    expect(values.map((entry) => entry.value).sort()).toEqual(['Acme BV', 'Acme BV']);
    const totals = await api.get<{ value: unknown; link: string }[]>('/invoices/values/linesTotal', ann.key);
    expect(totals.map((entry) => entry.link).sort()).toEqual([
      api.href('invoices', DEMO.invoice1),
      api.href('invoices', DEMO.invoice2),
    ]);
  });

  it('aggregations leave it out (sum, avg, count)', async () => {
    const all = await api.get<Json>('/invoices/aggregations?sum=linesTotal&count=linesTotal');
    // Invoice 2 has no lines: its total is 0, derived from no object at all.
    expect(all).toMatchObject({ total: 3, sum: { linesTotal: 5200 }, count: { linesTotal: 3 } });
    const annsView = await api.get<Json>(
      '/invoices/aggregations?sum=linesTotal&avg=linesTotal&count=linesTotal',
      ann.key,
    );
    expect(annsView).toEqual({
      total: 3,
      sum: { linesTotal: 1000 },
      avg: { linesTotal: 500 },
      count: { linesTotal: 2 },
    });
  });

  it('search does not find the invoice by the derived value (global search and list q)', async () => {
    const search = await api.rows('/search?q=Globex&classes=invoices', ann.key);
    expect(invoiceIds(search)).not.toContain(DEMO.invoice3);
    const listed = await api.rows('/invoices?q=Globex', ann.key);
    expect(invoiceIds(listed)).not.toContain(DEMO.invoice3);
  });

  it('the value follows access: once Ann is an employee of Globex, she reads it', async () => {
    const res = await api.call('PATCH', `/companies/${DEMO.globex}`, {
      body: { employees: [api.href('persons', DEMO.carla), api.href('persons', DEMO.ann)] },
    });
    expect(res.status).toBe(204);
    try {
      const invoice = await api.get(`/invoices/${DEMO.invoice3}`, ann.key);
      expect(invoice['clientName']).toBe('Globex NV');
      expect(invoiceIds(await api.rows('/invoices?clientName=Globex%20NV', ann.key))).toEqual([
        DEMO.invoice3,
      ]);
    } finally {
      const back = await api.call('PATCH', `/companies/${DEMO.globex}`, {
        body: { employees: [api.href('persons', DEMO.carla)] },
      });
      expect(back.status).toBe(204);
    }
  });
});

/** The credentials of the tenant: the system key and a key of each role. */
function credentials(): { name: string; key: string; role: 'system' | 'admin' | 'member' | 'viewer' }[] {
  return [
    { name: 'system key', key: api.systemKey, role: 'system' },
    { name: 'admin', key: admin.key, role: 'admin' },
    { name: 'member', key: ann.key, role: 'member' },
    { name: 'viewer', key: viewer.key, role: 'viewer' },
  ];
}

const SYSTEM_PLURALS = ['secretValues', 'systemSettings', 'serviceCallLogs', 'logEntries'] as const;

async function status(method: string, path: string, key: string, body?: unknown): Promise<number> {
  const res = await fetch(`${api.server.baseUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
  });
  const text = await res.text();
  expect(text).not.toContain('s3cr3t-value');
  return res.status;
}

describe('system classes are reachable only under /system/...', () => {
  it('precondition: the secret value exists and the system key reads usage records under /system', async () => {
    expect(await status('GET', `/system/${api.tenant}/serviceCallLogs`, api.systemKey)).toBe(200);
    expect(await status('GET', `/system/${api.tenant}/serviceCallLogs`, admin.key)).toBe(200);
    expect(await status('GET', `/system/${api.tenant}/serviceCallLogs`, ann.key)).toBe(403);
    expect(secretId).toMatch(/^[0-9a-f-]{36}$/);
  });

  for (const plural of SYSTEM_PLURALS) {
    it(`${plural}: every read route of /data answers 404 for every credential`, async () => {
      for (const { key } of credentials()) {
        for (const route of [
          `/${plural}`,
          `/${plural}?size=1000`,
          `/${plural}/distinct?distinct=name`,
          `/${plural}/aggregations`,
          `/${plural}/values/name`,
          `/${plural}/capabilities`,
          `/${plural}/${secretId}`,
          `/${plural}/${secretId}/capabilities`,
          `/companies/${DEMO.acme}/${plural}`,
        ]) {
          expect([route, await status('GET', api.path(route), key)]).toEqual([route, 404]);
        }
      }
    });

    it(`${plural}: writes through /data are refused (404, a viewer's 403 by role)`, async () => {
      for (const { key, role } of credentials()) {
        const expected = role === 'viewer' ? 403 : 404;
        const body = { name: `x-${role}`, secretValue: 'x', value: 'x', category: 'c', level: 'INFO' };
        expect(await status('POST', api.path(`/${plural}`), key, body)).toBe(expected);
        expect(await status('PATCH', api.path(`/${plural}/${secretId}`), key, { name: 'y' })).toBe(expected);
        expect(await status('DELETE', api.path(`/${plural}/${secretId}`), key)).toBe(expected);
        expect(await status('POST', api.path(`/${plural}/${secretId}/merge`), key, { loser: secretId })).toBe(
          expected,
        );
      }
    });

    it(`${plural}: search refuses the class and the metadata of data classes does not describe it`, async () => {
      for (const { key } of credentials()) {
        expect(await status('GET', api.path(`/search?q=globexApiToken&classes=${plural}`), key)).toBe(400);
        expect(await status('GET', `/metadata/${api.tenant}/dataObject?classes=${plural}`, key)).toBe(404);
        expect(await status('GET', `/metadata/${api.tenant}/form?classes=${plural}`, key)).toBe(404);
      }
    });
  }

  it('a system object is not reachable by its id under any data class, the audit or search', async () => {
    for (const { key, role } of credentials()) {
      expect(await status('GET', api.path(`/items/${secretId}`), key)).toBe(404);
      expect(await status('GET', api.path(`/companies/${secretId}`), key)).toBe(404);
      expect(await status('PATCH', api.path(`/items/${secretId}`), key, { name: 'y' })).toBe(
        role === 'viewer' ? 403 : 404,
      );
      const audit = await status('GET', `/audit/${api.tenant}/secretValues/${secretId}/access`, key);
      expect(audit).toBe(role === 'member' || role === 'viewer' ? 403 : 404);
      const res = await api.call('GET', '/search?q=globexApiToken', { key });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain(secretId);
    }
    // Still there, untouched, under /system: the object the attempts above aimed at.
    const kept = await fetch(`${api.server.baseUrl}/system/${api.tenant}/secretValues/${secretId}`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ name: 'globexApiToken' });
  });
});

describe('the log', () => {
  it('holds no error for any request of this suite (client mistakes are 4xx, never 500)', () => {
    expect(api.server.output()).not.toContain('"level":"error"');
    expect(api.server.output()).not.toContain('"status":500');
  });
});
