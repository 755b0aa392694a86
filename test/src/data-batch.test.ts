/**
 * The batch of writes (`POST /data/{tenant}/batch`) through the real server, on the demo tenant:
 * creates, creates related, patches and deletes in one request, written all together or not at
 * all; each operation under the rules of its own request (access control per operation, validation,
 * formulas); the failing operation named by its index; the bounds on operations and bytes.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';

let api: DataApi;
let annKey: string;
let counter = 0;

beforeAll(async () => {
  api = await startDataServer({ env: { ODP_BATCH_MAX_OPERATIONS: '5', ODP_BATCH_MAX_BYTES: '4096' } });
  const accounts = await createAccounts(api, [{ name: 'ann', role: 'member', objectId: DEMO.ann }]);
  annKey = accounts.get('ann')?.key ?? '';
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

const unique = () => `${Date.now().toString(36)}-b${(counter += 1)}`;

function batch(operations: unknown[], key?: string): Promise<Response> {
  return api.call('POST', '/batch', { body: { operations }, ...(key ? { key } : {}) });
}

async function problem(res: Response, status: number): Promise<Json> {
  expect({ status: res.status }).toEqual({ status });
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return (await res.json()) as Json;
}

async function countNamed(legalName: string): Promise<number> {
  return (await api.rows(`/companies?legalName=${encodeURIComponent(legalName)}`)).length;
}

describe('a batch that succeeds', () => {
  it('writes every operation and answers each one as its own request would', async () => {
    const existing = await api.create('companies', { legalName: `Existing ${unique()}` });
    const doomed = await api.create('companies', { legalName: `Doomed ${unique()}` });
    const created = `Batch ${unique()}`;
    const res = await batch([
      { method: 'POST', path: '/companies', body: { legalName: created } },
      { method: 'PATCH', path: `/companies/${existing}`, body: { legalName: `Patched ${created}` } },
      { method: 'DELETE', path: api.href('companies', doomed) },
      {
        method: 'POST',
        path: `/companies/${existing}/invoices`,
        body: { invoiceNumber: `B-${unique()}`, amount: 50 },
      },
    ]);
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: Json[] };
    expect(results.map((result) => result['status'])).toEqual([201, 204, 200, 201]);
    expect(results[0]?.['location']).toBe(api.href('companies', String(results[0]?.['id'])));
    expect(await countNamed(created)).toBe(1);
    expect((await api.get(`/companies/${existing}`))['legalName']).toBe(`Patched ${created}`);
    expect((await api.call('GET', `/companies/${doomed}`)).status).toBe(404);
    const invoice = await api.get(String(results[3]?.['location']).slice(api.path('').length));
    expect(invoice['clientName']).toBe(`Patched ${created}`);
    expect(invoice['total']).toBeGreaterThan(50);
  });

  it('applies later operations on top of earlier ones on the same object', async () => {
    const id = await api.create('persons', { firstName: 'Pat', lastName: `Doe ${unique()}` });
    const res = await batch([
      { method: 'PATCH', path: `/persons/${id}`, body: { firstName: 'Alex' } },
      { method: 'PATCH', path: `/persons/${id}`, body: { lastName: 'Second' } },
    ]);
    expect(res.status).toBe(200);
    expect(await api.get(`/persons/${id}`)).toMatchObject({ firstName: 'Alex', lastName: 'Second' });
  });
});

describe('a batch that fails writes nothing', () => {
  it('answers the invalid operation with its index and field errors; the valid ones are not written', async () => {
    const created = `Atomic ${unique()}`;
    const existing = await api.create('companies', { legalName: `Kept ${unique()}` });
    const before = await api.get(`/companies/${existing}`);
    const res = await batch([
      { method: 'POST', path: '/companies', body: { legalName: created } },
      { method: 'PATCH', path: `/companies/${existing}`, body: { legalName: `Lost ${created}` } },
      { method: 'POST', path: '/invoices', body: { invoiceNumber: `X-${unique()}`, amount: 'lots' } },
    ]);
    const body = await problem(res, 400);
    expect(body).toMatchObject({ type: 'urn:odp:problem:validation', operation: 2 });
    expect((body['errors'] as { field: string }[]).map((error) => error.field)).toContain('amount');
    expect(await countNamed(created)).toBe(0);
    expect(await api.get(`/companies/${existing}`)).toEqual(before);
  });

  it("fails a member's batch whole when one operation is on an object the member may not write", async () => {
    const before = await api.get(`/invoices/${DEMO.invoice1}`);
    const res = await batch(
      [
        { method: 'PATCH', path: `/invoices/${DEMO.invoice1}`, body: { amount: 999 } },
        { method: 'PATCH', path: `/invoices/${DEMO.invoice3}`, body: { amount: 999 } },
      ],
      annKey,
    );
    expect(await problem(res, 403)).toMatchObject({ type: 'urn:odp:problem:forbidden', operation: 1 });
    expect((await api.get(`/invoices/${DEMO.invoice1}`))['amount']).toEqual(before['amount']);
  });

  it('lets a member write what each operation allows on its own', async () => {
    const res = await batch(
      [{ method: 'PATCH', path: `/invoices/${DEMO.invoice1}`, body: { dueDate: '2027-01-31' } }],
      annKey,
    );
    expect(res.status).toBe(200);
  });

  it('fails on a stale ifMatch of one operation (412 with its index)', async () => {
    const id = await api.create('companies', { legalName: `Versioned ${unique()}` });
    const stale = (await api.call('GET', `/companies/${id}`)).headers.get('etag') ?? '';
    await api.call('PATCH', `/companies/${id}`, { body: { legalName: `Moved ${unique()}` } });
    const created = `Not written ${unique()}`;
    const res = await batch([
      { method: 'POST', path: '/companies', body: { legalName: created } },
      { method: 'DELETE', path: `/companies/${id}`, ifMatch: stale },
    ]);
    expect(await problem(res, 412)).toMatchObject({ operation: 1 });
    expect(await countNamed(created)).toBe(0);
    expect((await api.call('GET', `/companies/${id}`)).status).toBe(200);
  });

  it.each<[string, unknown, number | undefined]>([
    ['no operations array', { ops: [] }, undefined],
    ['an empty operations array', { operations: [] }, undefined],
    ['an unknown method', { operations: [{ method: 'PUT', path: '/companies', body: {} }] }, 0],
    [
      'a path of another tenant',
      { operations: [{ method: 'POST', path: '/data/other/companies', body: {} }] },
      0,
    ],
    ['a PATCH without an id', { operations: [{ method: 'PATCH', path: '/companies', body: {} }] }, 0],
    [
      'a DELETE with a body',
      { operations: [{ method: 'DELETE', path: `/companies/${DEMO.acme}`, body: {} }] },
      0,
    ],
  ])('answers 400 to %s', async (_name, body, operation) => {
    const res = await api.call('POST', '/batch', { body });
    const problemBody = await problem(res, 400);
    expect(problemBody['operation']).toBe(operation);
  });

  it('answers 404 with the index for an unknown class or object', async () => {
    const unknown = '00000000-0000-4000-8000-000000000999';
    const res = await batch([
      { method: 'POST', path: '/companies', body: { legalName: `Fine ${unique()}` } },
      { method: 'DELETE', path: `/companies/${unknown}` },
    ]);
    expect(await problem(res, 404)).toMatchObject({ operation: 1 });
  });
});

describe('the bounds of a batch', () => {
  it('refuses more operations than ODP_BATCH_MAX_OPERATIONS with 413, writing nothing', async () => {
    const name = `Too many ${unique()}`;
    const operations = Array.from({ length: 6 }, () => ({
      method: 'POST',
      path: '/companies',
      body: { legalName: name },
    }));
    await problem(await batch(operations), 413);
    expect(await countNamed(name)).toBe(0);
  });

  it('refuses operations over ODP_BATCH_MAX_BYTES with 413', async () => {
    const res = await batch([
      {
        method: 'POST',
        path: '/companies',
        body: { legalName: `Big ${'x'.repeat(5000)}` },
      },
    ]);
    await problem(res, 413);
  });
});
