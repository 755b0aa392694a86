/**
 * The capabilities routes through the real server on the demo tenant (examples/models/crm):
 * one scenario per rule of the interface spec's Capabilities section, and rule 2 checked by doing
 * the write each answer predicts.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

let api: DataApi;
let accounts: Map<string, TestAccount>;

beforeAll(async () => {
  api = await startDataServer();
  accounts = await createAccounts(api, [
    { name: 'ann', role: 'member', objectId: DEMO.ann },
    { name: 'bob', role: 'viewer', objectId: DEMO.bob },
    { name: 'carla', role: 'member', extraRoles: ['accountant'], objectId: DEMO.carla },
    { name: 'dave', role: 'member' },
    { name: 'admin', role: 'admin' },
  ]);
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

/** The key of a named account; `system` is the demo tenant's system key. */
function keyOf(who: string): string {
  if (who === 'system') return api.systemKey;
  const account = accounts.get(who);
  if (!account) throw new Error(`no account ${who}`);
  return account.key;
}

async function capabilities(who: string, route: string): Promise<{ status: number; body: Json | null }> {
  const res = await api.call('GET', route, { key: keyOf(who) });
  const body = res.headers.get('content-type')?.includes('json') ? ((await res.json()) as Json) : null;
  return { status: res.status, body };
}

const UNKNOWN = '00000000-0000-4000-8000-000000000999';

describe('object capabilities: mayModify is the model WRITE, mayDelete what Delete asks', () => {
  it.each<[string, string, string, { mayModify: boolean; mayDelete: boolean }]>([
    [
      'employee on own company (node allows WRITE, not DELETE)',
      'ann',
      `/companies/${DEMO.acme}`,
      { mayModify: true, mayDelete: false },
    ],
    [
      'employee on an invoice of own company',
      'ann',
      `/invoices/${DEMO.invoice1}`,
      { mayModify: true, mayDelete: true },
    ],
    [
      'member on another company invoice (path-less READ only)',
      'ann',
      `/invoices/${DEMO.invoice3}`,
      { mayModify: false, mayDelete: false },
    ],
    [
      'zero-hop: a person on self (READ, WRITE)',
      'ann',
      `/persons/${DEMO.ann}`,
      { mayModify: true, mayDelete: false },
    ],
    [
      'accountant plus member on own company invoice',
      'carla',
      `/invoices/${DEMO.invoice3}`,
      { mayModify: true, mayDelete: true },
    ],
    [
      'member without linked person on a readable invoice',
      'dave',
      `/invoices/${DEMO.invoice1}`,
      { mayModify: false, mayDelete: false },
    ],
    [
      'admin through the path-less everything',
      'admin',
      `/invoiceLines/${DEMO.line3}`,
      { mayModify: true, mayDelete: true },
    ],
    ['system account', 'system', `/companies/${DEMO.globex}`, { mayModify: true, mayDelete: true }],
    [
      'rule 5: a viewer gets false for every mutating capability',
      'bob',
      `/persons/${DEMO.bob}`,
      { mayModify: false, mayDelete: false },
    ],
  ])('%s', async (_name, who, route, expected) => {
    expect(await capabilities(who, `${route}/capabilities`)).toEqual({ status: 200, body: expected });
  });

  it.each<[string, string, string]>([
    ['an object the caller cannot read', 'ann', `/companies/${DEMO.globex}/capabilities`],
    ['an unknown id', 'system', `/companies/${UNKNOWN}/capabilities`],
    ['a malformed id', 'system', '/companies/not-a-uuid/capabilities'],
    ['an object under a plural it cannot have', 'system', `/invoices/${DEMO.acme}/capabilities`],
  ])('rule 3: 404 for %s', async (_name, who, route) => {
    expect((await capabilities(who, route)).status).toBe(404);
  });
});

describe('create capabilities: allowedClasses are the concrete classes that would succeed', () => {
  it.each<[string, string, string, { mayCreate: boolean; allowedClasses: string[] }]>([
    [
      'member at the root of invoices (no root node allows CREATE)',
      'ann',
      '/invoices/capabilities',
      { mayCreate: false, allowedClasses: [] },
    ],
    [
      'admin at the root of the abstract organisations',
      'admin',
      '/organisations/capabilities',
      { mayCreate: true, allowedClasses: ['companies'] },
    ],
    [
      'admin with ?class=companies',
      'admin',
      '/organisations/capabilities?class=companies',
      { mayCreate: true, allowedClasses: ['companies'] },
    ],
    [
      'system account at the root',
      'system',
      '/invoices/capabilities',
      { mayCreate: true, allowedClasses: ['invoices'] },
    ],
    [
      'employee under own company (n-invoices allows CREATE)',
      'ann',
      `/companies/${DEMO.acme}/invoices/capabilities`,
      { mayCreate: true, allowedClasses: ['invoices'] },
    ],
    [
      'employee under an invoice of own company, by inverse name',
      'ann',
      `/invoices/${DEMO.invoice1}/lines/capabilities`,
      { mayCreate: true, allowedClasses: ['invoiceLines'] },
    ],
    [
      'employee under an invoice of own company, by class plural',
      'ann',
      `/invoices/${DEMO.invoice1}/invoiceLines/capabilities`,
      { mayCreate: true, allowedClasses: ['invoiceLines'] },
    ],
    [
      'member under a readable invoice of another company',
      'ann',
      `/invoices/${DEMO.invoice3}/lines/capabilities`,
      { mayCreate: false, allowedClasses: [] },
    ],
    [
      'zero-hop: notes under self',
      'ann',
      `/persons/${DEMO.ann}/notes/capabilities`,
      { mayCreate: true, allowedClasses: ['notes'] },
    ],
    [
      'rule 5: a viewer under own company',
      'bob',
      `/companies/${DEMO.acme}/invoices/capabilities`,
      { mayCreate: false, allowedClasses: [] },
    ],
    [
      'rule 5: a viewer at the root',
      'bob',
      '/persons/capabilities',
      { mayCreate: false, allowedClasses: [] },
    ],
  ])('%s', async (_name, who, route, expected) => {
    expect(await capabilities(who, route)).toEqual({ status: 200, body: expected });
  });

  it.each<[string, string, string, number]>([
    [
      'rule 3: an unreadable reference object is 404',
      'ann',
      `/companies/${DEMO.globex}/invoices/capabilities`,
      404,
    ],
    [
      'rule 3 before rule 4: unreadable reference and no relation',
      'ann',
      `/companies/${DEMO.globex}/notes/capabilities`,
      404,
    ],
    [
      'rule 3: an unknown reference object is 404',
      'system',
      `/companies/${UNKNOWN}/invoices/capabilities`,
      404,
    ],
    [
      'rule 4: no relation connects companies and notes',
      'system',
      `/companies/${DEMO.acme}/notes/capabilities`,
      400,
    ],
    [
      'rule 4: for a viewer too (a 400, not a false answer)',
      'bob',
      `/companies/${DEMO.acme}/notes/capabilities`,
      400,
    ],
    ['?class= that is no kind of the type', 'admin', '/organisations/capabilities?class=persons', 400],
  ])('%s', async (_name, who, route, status) => {
    expect((await capabilities(who, route)).status).toBe(status);
  });
});

describe('rule 2: each answer is the decision the write enforces', () => {
  const invoiceBody = (number: string): Json => ({
    invoiceNumber: number,
    invoiceDate: '2026-03-01',
    amount: 10,
    vatRate: 21,
    status: 'draft',
  });
  const lineBody: Json = { description: 'x', quantity: 1, unitPrice: 1 };

  it.each<[string, string, string, string, Json]>([
    ['member creates an invoice under own company', 'ann', `/companies/${DEMO.acme}/invoices`, 'r2-1', {}],
    [
      'member under a readable invoice of another company',
      'ann',
      `/invoices/${DEMO.invoice3}/lines`,
      '',
      lineBody,
    ],
    [
      'member at the root of invoices',
      'ann',
      '/invoices',
      'r2-2',
      { client: `/data/{t}/companies/${DEMO.acme}` },
    ],
    [
      'accountant without CREATE in the role grant',
      'carla',
      `/invoices/${DEMO.invoice3}/lines`,
      '',
      lineBody,
    ],
    ['admin at the root', 'admin', '/invoices', 'r2-3', { client: `/data/{t}/companies/${DEMO.acme}` }],
  ])('create: %s', async (_name, who, route, number, extra) => {
    const answer = await capabilities(who, `${route}/capabilities`);
    const body = { ...(number ? invoiceBody(number) : {}), ...extra };
    const resolved = JSON.parse(JSON.stringify(body).replaceAll('{t}', api.tenant)) as Json;
    const res = await api.call('POST', route, { key: keyOf(who), body: resolved });
    expect({ mayCreate: answer.body?.['mayCreate'], status: res.status }).toEqual({
      mayCreate: res.status === 201,
      status: answer.body?.['mayCreate'] === true ? 201 : 403,
    });
  });

  it.each<[string, string, string]>([
    ['member on own company', 'ann', `/companies/${DEMO.acme}`],
    ['member on another company invoice', 'ann', `/invoices/${DEMO.invoice3}`],
    ['member on self', 'ann', `/persons/${DEMO.ann}`],
    ['accountant on own company invoice', 'carla', `/invoices/${DEMO.invoice3}`],
  ])('patch: %s', async (_name, who, route) => {
    const answer = await capabilities(who, `${route}/capabilities`);
    const res = await api.call('PATCH', route, { key: keyOf(who), body: {} });
    expect(res.status).toBe(answer.body?.['mayModify'] === true ? 204 : 403);
  });

  it('delete: a line of own company (allowed) and a company (refused), as predicted', async () => {
    const line = await api.create('invoiceLines', {
      ...lineBody,
      invoice: api.href('invoices', DEMO.invoice2),
    });
    for (const [route, expected] of [
      [`/invoiceLines/${line}`, 200],
      [`/companies/${DEMO.acme}`, 403],
    ] as const) {
      const answer = await capabilities('ann', `${route}/capabilities`);
      expect(answer.body?.['mayDelete']).toBe(expected === 200);
      expect((await api.call('DELETE', route, { key: keyOf('ann') })).status).toBe(expected);
    }
  });
});
