/**
 * The write side of the object data API through the real server, on the demo tenant: Create (one
 * scenario per body-key row and rule), encoding and validation per data type, Create related, Patch
 * (one scenario per row of the Patch table), Delete (one per row of the Delete table), Merge (order
 * of effects, 307, errors), default data, and the bad-input list (never a 500, never a partial write).
 * Scenarios create their own objects, except where the default data is the point.
 */
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';

let api: DataApi;
let counter = 0;

beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

/** A unique suffix per call (unique fields such as registrationNumber and invoiceNumber). */
const unique = () => `${Date.now().toString(36)}-${(counter += 1)}`;

const company = (extra: Json = {}) => api.create('companies', { legalName: `Co ${unique()}`, ...extra });
const person = (extra: Json = {}) =>
  api.create('persons', { firstName: 'Pat', lastName: `Doe ${unique()}`, ...extra });
const invoice = (clientId: string, extra: Json = {}) =>
  api.create('invoices', {
    invoiceNumber: `T-${unique()}`,
    amount: 100,
    client: api.href('companies', clientId),
    ...extra,
  });

async function problem(res: Response, status: number): Promise<Json> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status });
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return JSON.parse(text) as Json;
}

const fieldsOf = (body: Json) =>
  ((body['errors'] as { field: string }[] | undefined) ?? []).map((e) => e.field).sort();

describe('Create', () => {
  it('answers 201 with Location and no body; the server sets id and dates', async () => {
    const res = await api.call('POST', '/companies', {
      body: { legalName: 'Created BV', _creationDate: '2000-01-01T00:00:00Z', id: 'mine' },
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('');
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^/data/${api.tenant}/companies/[0-9a-f-]{36}$`));
    const created = await api.get(location.slice(api.path('').length));
    expect(created['_creationDate']).not.toBe('2000-01-01T00:00:00Z');
    expect(created['legalName']).toBe('Created BV');
  });

  it.each<[string, Json]>([
    ['rule 1: unknown keys', { colour: 'red', nested: { a: 1 } }],
    ['rule 1: __proto__', JSON.parse('{"__proto__": {"polluted": true}}') as Json],
    ['rule 1: constructor', { constructor: { prototype: { polluted: true } } }],
    ['rule 1: an inverse side (read-only)', { invoices: ['/data/x/invoices/1'] }],
    ['rule 5: _modificationDate', { _modificationDate: '1999-01-01T00:00:00Z' }],
  ])('ignores %s', async (_name, extra) => {
    const id = await company(extra);
    const created = await api.get(`/companies/${id}`);
    expect(created).not.toHaveProperty('colour');
    expect(created).not.toHaveProperty('polluted');
    // A polluted prototype on the server would show up on every object rendered afterwards.
    expect(await api.get(`/persons/${DEMO.bob}`)).not.toHaveProperty('polluted');
    expect(created['_modificationDate']).not.toBe('1999-01-01T00:00:00Z');
  });

  it('rule 2: formulas overwrite the request value; onlyWhenMissing keeps a sent value', async () => {
    const id = await invoice(DEMO.acme, { amount: 200, vatRate: 10, vatAmount: 999 });
    expect(await api.get(`/invoices/${id}`)).toMatchObject({
      vatAmount: 20,
      total: 220,
      clientName: 'Acme BV',
    });
    const kept = await person({ firstName: 'Quinn', initials: 'QX' });
    const computed = await person({ firstName: 'Quinn' });
    expect((await api.get(`/persons/${kept}`))['initials']).toBe('QX');
    expect((await api.get(`/persons/${computed}`))['initials']).toBe('QUINN.');
  });

  it('rule 3: defaults fill required fields left empty (literal and formula)', async () => {
    const id = await invoice(DEMO.acme);
    const today = new Date().toISOString().slice(0, 10);
    const created = await api.get(`/invoices/${id}`);
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10);
    // Defaults are in place before scripts and formulas read them.
    expect(created).toMatchObject({
      vatRate: 21,
      invoiceDate: today,
      vatAmount: 21,
      total: 121,
      dueDate: due,
    });
    expect((created['status'] as Json)['current']).toBe('draft');
    expect((await api.get(`/companies/${await company()}`))['active']).toBe(true);
  });

  it('rule 4: a create script runs before the object is stored', async () => {
    const id = await invoice(DEMO.acme, { invoiceDate: '2026-03-01' });
    expect((await api.get(`/invoices/${id}`))['dueDate']).toBe('2026-03-31');
    const given = await invoice(DEMO.acme, { invoiceDate: '2026-03-01', dueDate: '2026-03-05' });
    expect((await api.get(`/invoices/${given}`))['dueDate']).toBe('2026-03-05');
  });

  it.each<[string, string, Json, number, string[]]>([
    [
      'rule 6: missing required fields and relations, every one named',
      'invoices',
      {},
      400,
      ['amount', 'client', 'invoiceNumber'],
    ],
    [
      'rule 6: LIST value not a key',
      'companies',
      { legalName: 'L', companyType: 'plc' },
      400,
      ['companyType'],
    ],
    [
      'rule 6: multi-valued relation not an array',
      'companies',
      { legalName: 'L', employees: '/data/x/persons/1' },
      400,
      ['employees'],
    ],
    [
      'rule 6: multiple FILE field not an array',
      'documents',
      { title: 'T', file: { href: '/binaries/x' }, attachments: {} },
      400,
      ['attachments', 'file'],
    ],
    ['rule 7: unknown class', 'unicorns', { name: 'x' }, 404, []],
    [
      'rule 7: related object URI of a missing object',
      'invoices',
      {
        invoiceNumber: 'X-1',
        amount: 1,
        client: '/data/{t}/companies/00000000-0000-4000-8000-000000000000',
      },
      404,
      [],
    ],
    [
      'rule 7: related object URI of another tenant',
      'invoices',
      {
        invoiceNumber: 'X-2',
        amount: 1,
        client: `/data/00000000-0000-4000-8000-00000000abcd/companies/${DEMO.acme}`,
      },
      404,
      [],
    ],
    ['an abstract class', 'organisations', { legalName: 'Abstract' }, 400, ['class']],
    ['a role class', 'shareholders', {}, 400, ['class']],
    [
      'a relation to an object of the wrong class',
      'invoices',
      {
        invoiceNumber: 'X-3',
        amount: 1,
        client: `/data/{t}/persons/${DEMO.ann}`,
      },
      400,
      ['client'],
    ],
  ])('%s', async (_name, plural, body, status, fields) => {
    const before = (
      await api.get<{ total: number }>(`/${plural === 'unicorns' ? 'persons' : plural}/aggregations`)
    ).total;
    const res = await api.call('POST', `/${plural}`, {
      body: JSON.parse(JSON.stringify(body).replaceAll('{t}', api.tenant)) as Json,
    });
    const body_ = await problem(res, status);
    if (fields.length > 0) expect(fieldsOf(body_)).toEqual(fields);
    const after = (
      await api.get<{ total: number }>(`/${plural === 'unicorns' ? 'persons' : plural}/aggregations`)
    ).total;
    expect(after).toBe(before);
  });

  it('answers 409 for a duplicate unique value and writes nothing', async () => {
    await company({ registrationNumber: 'UNIQ-1' });
    const res = await api.call('POST', '/companies', {
      body: { legalName: 'Dup', registrationNumber: 'UNIQ-1' },
    });
    await problem(res, 409);
    expect(await api.ids('/companies?legalName=Dup')).toEqual([]);
  });

  it('creates a concrete subclass of an abstract type with ?class=', async () => {
    const res = await api.call('POST', '/organisations?class=companies', { body: { legalName: 'Sub BV' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toContain('/companies/');
    await problem(await api.call('POST', '/organisations?class=persons', { body: { firstName: 'a' } }), 400);
  });

  it('gives a linked object a role class it is attachable to', async () => {
    const holder = await person();
    await company({ shareholders: [api.href('persons', holder)] });
    expect((await api.get(`/persons/${holder}`))['_classes']).toEqual(
      expect.arrayContaining(['shareholders']),
    );
    const notAttachable = await invoice(DEMO.acme);
    await problem(
      await api.call('POST', '/companies', {
        body: { legalName: 'X', shareholders: [api.href('invoices', notAttachable)] },
      }),
      400,
    );
  });
});

describe('Encoding and validation per data type', () => {
  const TS = '2026-05-01T12:30:00+02:00';
  it.each<[string, string, string, unknown, unknown, unknown]>([
    // [type, class, field, valid value, as returned, invalid value]
    ['TEXT', 'companies', 'website', 'https://x.example', 'https://x.example', 12],
    ['TEXTBLOCK', 'companies', 'description', 'Line 1\nLine 2', 'Line 1\nLine 2', true],
    ['EMAIL', 'companies', 'email', 'a@b.example', 'a@b.example', 'not-an-email'],
    ['INTEGER', 'companies', 'employeeCount', 7, 7, 7.5],
    ['CURRENCY', 'companies', 'revenue', 1234.56, 1234.56, '1234'],
    ['BOOLEAN', 'companies', 'active', false, false, 'false'],
    ['DATE', 'companies', 'foundedOn', '2020-02-29', '2020-02-29', '2021-02-29'],
    ['DATETIME', 'companies', 'lastContactAt', TS, '2026-05-01T10:30:00.000Z', '2026-05-01 12:30'],
    ['TIME', 'companies', 'openingTime', '09:15:30', '09:15:30', '25:00'],
    ['LIST', 'companies', 'companyType', 'sole', 'sole', 'llc'],
    ['JSON', 'companies', 'profile', { a: [1, { b: null }] }, { a: [1, { b: null }] }, undefined],
    ['ARRAY', 'companies', 'tags', ['a', 2], ['a', 2], [{ a: 1 }]],
    ['multiple TEXT', 'persons', 'phoneNumbers', ['1', '2'], ['1', '2'], '1'],
    ['DECIMAL', 'invoiceLines', 'quantity', 2.5, 2.5, 'two'],
    ['PERCENTAGE', 'invoices', 'vatRate', 12.5, 12.5, '12.5%'],
    ['LONGTEXT', 'notes', 'body', 'long text', 'long text', ['x']],
  ])('%s: encodes and validates', async (_type, plural, field, valid, returned, invalid) => {
    const base = await baseBody(plural);
    const id = await api.create(plural, { ...base, [field]: valid });
    expect((await api.get(`/${plural}/${id}`))[field]).toEqual(returned);
    if (invalid === undefined) return;
    const body = await problem(
      await api.call('POST', `/${plural}`, { body: { ...base, [field]: invalid } }),
      400,
    );
    expect(fieldsOf(body)).toEqual([field]);
  });

  it('SECRET: accepted, validated, never returned', async () => {
    const id = await company({ apiToken: 's3cret' });
    const body = JSON.stringify(await api.get(`/companies/${id}`));
    expect(body).not.toContain('s3cret');
    expect(body).not.toContain('apiToken');
    await problem(await api.call('POST', '/companies', { body: { legalName: 'S', apiToken: 5 } }), 400);
  });

  it('IMAGE and FILE: an upload descriptor, returned as {contentType, fileName, size, href} under the download path', async () => {
    const uploadUrl = await api.get<string>('/upload');
    const form = new FormData();
    form.append(
      'file',
      new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2])]),
      'logo.png',
    );
    const [descriptor] = (await (await fetch(uploadUrl, { method: 'POST', body: form })).json()) as Json[];
    const fileId = String(descriptor?.['href']).slice(-36);
    const id = await company({ logo: descriptor });
    expect((await api.get(`/companies/${id}`))['logo']).toEqual({
      contentType: 'image/png',
      fileName: 'logo.png',
      size: 10,
      href: `/data/${api.tenant}/download/${id}/${fileId}`,
    });
    await problem(await api.call('POST', '/companies', { body: { legalName: 'F', logo: 'logo.png' } }), 400);
    const made = {
      href: '/binaries/11111111-2222-4333-8444-555555555555',
      fileName: 'x.png',
      contentType: 'image/png',
      size: 42,
    };
    await problem(await api.call('POST', '/companies', { body: { legalName: 'F', logo: made } }), 400);
  });
});

/** A minimal valid body for a class of the demo model. */
async function baseBody(plural: string): Promise<Json> {
  switch (plural) {
    case 'companies':
      return { legalName: `T ${unique()}` };
    case 'persons':
      return { firstName: 'T', lastName: unique() };
    case 'invoices':
      return { invoiceNumber: `E-${unique()}`, amount: 1, client: api.href('companies', DEMO.acme) };
    case 'invoiceLines':
      return { description: 'd', unitPrice: 1, invoice: api.href('invoices', DEMO.invoice2) };
    default:
      return { subject: 's' };
  }
}

describe('Prefer: return=representation (RFC 7240) saves the read after a write', () => {
  const PREFER = { Prefer: 'return=representation' };

  it('create answers 201 with Location and the created object as Get one renders it', async () => {
    const res = await api.call('POST', '/companies', {
      body: { legalName: `Rep ${unique()}` },
      headers: PREFER,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('return=representation');
    const href = res.headers.get('location') ?? '';
    const body = (await res.json()) as Json;
    expect(body).toEqual(await api.get(`/companies/${href.slice(-36)}`));
    expect((body['_links'] as { _self: { href: string } })._self.href).toBe(href);
  });

  it('create related answers the created object with its link to the parent', async () => {
    const client = await company();
    const res = await api.call('POST', `/companies/${client}/invoices`, {
      body: { invoiceNumber: `RR-${unique()}`, amount: 3 },
      headers: PREFER,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect((body['_links'] as Json)['client']).toMatchObject({ href: api.href('companies', client) });
  });

  it('patch answers 200 with the changed object, merge 200 with the winner', async () => {
    const id = await company();
    const patched = await api.call('PATCH', `/companies/${id}`, {
      body: { employeeCount: 12 },
      headers: PREFER,
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('location')).toBe(api.href('companies', id));
    expect(await patched.json()).toMatchObject({ employeeCount: 12 });
    const loser = await company();
    const merged = await api.call('POST', `/companies/${id}/merge`, { body: { loser }, headers: PREFER });
    expect(merged.status).toBe(200);
    expect(await merged.json()).toEqual(await api.get(`/companies/${id}`));
  });

  it('without the preference (or with return=minimal) the answers stay as the spec says: no body', async () => {
    const created = await api.call('POST', '/companies', {
      body: { legalName: `Min ${unique()}` },
      headers: { Prefer: 'return=minimal' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBeNull();
    expect(await created.text()).toBe('');
    const id = (created.headers.get('location') ?? '').slice(-36);
    const patched = await api.call('PATCH', `/companies/${id}`, { body: { employeeCount: 1 } });
    expect(patched.status).toBe(204);
  });
});

describe('Concurrent writes to one object (optimistic concurrency)', () => {
  it('loses no link when create-related requests for one parent run at once', async () => {
    const parent = await company();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.call('POST', `/companies/${parent}/employees`, {
          body: { firstName: 'Concurrent', lastName: `Employee ${i}` },
        }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(Array(20).fill(201));
    const created = results.map((res) => (res.headers.get('location') ?? '').slice(-36)).sort();
    expect((await api.ids(`/companies/${parent}/employees?size=100`)).sort()).toEqual(created);
  });

  it('keeps every change of concurrent patches to different fields of one object', async () => {
    const id = await company();
    const patches: Json[] = [
      { employeeCount: 7 },
      { foundedOn: '2001-02-03' },
      { openingTime: '08:30' },
      { tags: ['a', 'b'] },
      { companyType: 'nv' },
      { lastContactAt: '2024-05-06T07:08:09.000Z' },
    ];
    const results = await Promise.all(patches.map((body) => api.call('PATCH', `/companies/${id}`, { body })));
    expect(results.map((res) => res.status)).toEqual(patches.map(() => 204));
    expect(await api.get(`/companies/${id}`)).toMatchObject(Object.assign({}, ...patches));
  });
});

describe('Create related', () => {
  it('rule 1: creates an object linked to the reference object (inverse side in the path)', async () => {
    const client = await company();
    const id = await api.create(
      'invoices',
      { invoiceNumber: `R-${unique()}`, amount: 5 },
      `/companies/${client}/invoices`,
    );
    const created = await api.get(`/invoices/${id}`);
    expect((created['_links'] as Json)['client']).toMatchObject({ href: api.href('companies', client) });
    expect(await api.ids(`/companies/${client}/invoices`)).toEqual([id]);
  });

  it('rule 1: the path wins over the same relation in the body', async () => {
    const client = await company();
    const id = await api.create(
      'invoices',
      { invoiceNumber: `R-${unique()}`, amount: 5, client: api.href('companies', DEMO.globex) },
      `/companies/${client}/invoices`,
    );
    expect(((await api.get(`/invoices/${id}`))['_links'] as Json)['client']).toMatchObject({
      href: api.href('companies', client),
    });
  });

  it('creates through a forward relation of the reference object (the parent gains the link)', async () => {
    const parent = await company();
    const id = await api.create(
      'persons',
      { firstName: 'E', lastName: unique() },
      `/companies/${parent}/employees`,
    );
    expect(await api.ids(`/companies/${parent}/employees`)).toEqual([id]);
  });

  it('rule 2: ?class= creates a concrete subclass', async () => {
    const holder = await person();
    const res = await api.call('POST', `/persons/${holder}/employers?class=companies`, {
      body: { legalName: `Employer ${unique()}` },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toContain('/companies/');
    expect(await api.ids(`/persons/${holder}/employers`)).toHaveLength(1);
  });

  it.each<[string, () => string, number]>([
    [
      'rule 3: a reference object that does not exist',
      () => `/companies/00000000-0000-4000-8000-000000000000/invoices`,
      404,
    ],
    ['rule 3: classes no relation connects', () => `/persons/${DEMO.ann}/invoiceLines`, 400],
    ['an unknown type name', () => `/companies/${DEMO.acme}/unicorns`, 404],
  ])('%s', async (_name, route, status) => {
    await problem(await api.call('POST', route(), { body: { invoiceNumber: 'Z', amount: 1 } }), status);
  });
});

describe('Patch: one scenario per row of the Patch table', () => {
  const patch = (id: string, body: Json, plural = 'invoices') =>
    api.call('PATCH', `/${plural}/${id}`, { body });

  it('answers 204 with Location and no body', async () => {
    const id = await invoice(DEMO.acme);
    const res = await patch(id, { amount: 300 });
    expect(res.status).toBe(204);
    expect(res.headers.get('location')).toBe(api.href('invoices', id));
    expect(await res.text()).toBe('');
  });

  it.each<[string, Json, (object: Json) => void]>([
    ['key absent: unchanged', {}, (o) => expect(o['amount']).toBe(100)],
    [
      'field with a value: replaced',
      { amount: 150 },
      (o) => expect(o).toMatchObject({ amount: 150, total: 181.5 }),
    ],
    ['field null: cleared', { dueDate: null }, (o) => expect(o).not.toHaveProperty('dueDate')],
    ['field empty string: cleared', { dueDate: '' }, (o) => expect(o).not.toHaveProperty('dueDate')],
    [
      'single-valued relation with a URI: replaced',
      { contact: '{bob}' },
      (o) => expect((o['_links'] as Json)['contact']).toMatchObject({ name: 'Bob Jansen' }),
    ],
    [
      'single-valued relation null: cleared',
      { contact: null },
      (o) => expect(o['_links']).not.toHaveProperty('contact'),
    ],
    [
      'single-valued relation empty string: cleared',
      { contact: '' },
      (o) => expect(o['_links']).not.toHaveProperty('contact'),
    ],
  ])('%s', async (_row, body, check) => {
    const id = await invoice(DEMO.acme, { contact: api.href('persons', DEMO.ann) });
    const sent = JSON.parse(JSON.stringify(body).replace('{bob}', api.href('persons', DEMO.bob))) as Json;
    expect((await patch(id, sent)).status).toBe(204);
    check(await api.get(`/invoices/${id}`));
  });

  it.each<[string, (people: string[]) => unknown, number]>([
    ['multi-valued relation with an array: whole list replaced', (p) => [api.href('persons', p[2] ?? '')], 1],
    ['multi-valued relation with an empty array: all links removed', () => [], 0],
    ['multi-valued relation null: unchanged', () => null, 2],
  ])('%s', async (_row, value, expected) => {
    const people = [await person(), await person(), await person()];
    const id = await company({ employees: people.slice(0, 2).map((p) => api.href('persons', p)) });
    expect((await patch(id, { employees: value(people) }, 'companies')).status).toBe(204);
    expect(await api.ids(`/companies/${id}/employees`)).toHaveLength(expected);
  });

  it.each<[string, Json, string[]]>([
    ['clearing a required field', { invoiceNumber: null }, ['invoiceNumber']],
    ['clearing a required field that has a default', { status: '' }, ['status']],
    ['clearing a required relation', { client: null }, ['client']],
    ['a wrong type', { amount: 'much' }, ['amount']],
    ['a LIST value not a key', { status: 'lost' }, ['status']],
  ])('answers 400 for %s and changes nothing', async (_name, body, fields) => {
    const id = await invoice(DEMO.acme);
    const before = await api.get(`/invoices/${id}`);
    expect(fieldsOf(await problem(await patch(id, body), 400))).toEqual(fields);
    expect(await api.get(`/invoices/${id}`)).toEqual(before);
  });

  it('runs update formulas and appends history entries, newest first', async () => {
    const id = await invoice(DEMO.acme);
    await patch(id, { status: 'sent' });
    await patch(id, { status: 'paid', amount: 10 });
    const updated = await api.get(`/invoices/${id}`);
    const status = updated['status'] as { current: string; history: { value: string }[] };
    expect(status.current).toBe('paid');
    expect(status.history.map((entry) => entry.value)).toEqual(['paid', 'sent', 'draft']);
    expect(updated['vatAmount']).toBe(2.1);
  });

  it('keeps linking objects in step: formulas and relation-name filters after a rename', async () => {
    const client = await company({ legalName: `Before ${unique()}` });
    const id = await invoice(client);
    const name = `After ${unique()}`;
    expect((await patch(client, { legalName: name }, 'companies')).status).toBe(204);
    expect((await api.get(`/invoices/${id}`))['clientName']).toBe(name);
    expect(await api.ids(`/invoices?client=${encodeURIComponent(name)}`)).toEqual([id]);
    expect(await api.ids(`/invoices?sort=client&client.name=${encodeURIComponent(name)}`)).toEqual([id]);
  });

  it.each<[string, string, number]>([
    ['a missing object', '/invoices/00000000-0000-4000-8000-000000000000', 404],
    ['a non-UUID id', '/invoices/123', 404],
    ['an unknown class', `/unicorns/${DEMO.invoice1}`, 404],
    ['a body that is not an object', `/invoices/${DEMO.invoice2}`, 400],
  ])('answers for %s', async (_name, route, status) => {
    await problem(await api.call('PATCH', route, { body: status === 400 ? '[1,2]' : { amount: 1 } }), status);
  });
});

describe('Delete: one scenario per row of the Delete table', () => {
  it('cascadeDelete: the linking objects are deleted too', async () => {
    const inv = await invoice(DEMO.acme);
    const line = await api.create('invoiceLines', {
      description: 'd',
      unitPrice: 1,
      invoice: api.href('invoices', inv),
    });
    const res = await api.call('DELETE', `/invoices/${inv}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await api.call('GET', `/invoiceLines/${line}`)).status).toBe(404);
    expect((await api.call('GET', `/invoices/${inv}`)).status).toBe(404);
  });

  it('single-valued and required: refused with 409 while such objects exist, nothing deleted', async () => {
    const client = await company();
    const inv = await invoice(client);
    await problem(await api.call('DELETE', `/companies/${client}`), 409);
    expect((await api.call('GET', `/companies/${client}`)).status).toBe(200);
    expect((await api.call('DELETE', `/invoices/${inv}`)).status).toBe(200);
    expect((await api.call('DELETE', `/companies/${client}`)).status).toBe(200);
  });

  it('anything else: the link is removed and the linking object recalculated', async () => {
    const contact = await person();
    const inv = await invoice(DEMO.globex, { contact: api.href('persons', contact) });
    const line = await api.create('invoiceLines', {
      description: 'd',
      unitPrice: 7,
      invoice: api.href('invoices', inv),
    });
    expect((await api.get(`/invoices/${inv}`))['linesTotal']).toBe(7);
    expect((await api.call('DELETE', `/persons/${contact}`)).status).toBe(200);
    expect((await api.get(`/invoices/${inv}`))['_links']).not.toHaveProperty('contact');
    expect((await api.call('DELETE', `/invoiceLines/${line}`)).status).toBe(200);
    expect((await api.get(`/invoices/${inv}`))['linesTotal']).toBe(0);
  });

  it.each([
    ['a missing object', '/persons/00000000-0000-4000-8000-000000000000'],
    ['a non-UUID id', '/persons/x'],
  ])('answers 404 for %s', async (_name, route) => {
    await problem(await api.call('DELETE', route), 404);
  });
});

describe('Merge', () => {
  it('applies the order of effects and redirects the loser with 307', async () => {
    const winner = await person({ firstName: 'Win' });
    const loser = await person({ firstName: 'Lose', birthDate: '1990-01-01' });
    await company({ shareholders: [api.href('persons', loser)] });
    const both = await company({ employees: [api.href('persons', winner), api.href('persons', loser)] });
    const single = await invoice(DEMO.acme, { contact: api.href('persons', loser) });

    const res = await api.call('POST', `/persons/${winner}/merge`, {
      body: { loser: api.href('persons', loser), patch: { lastName: 'Merged' } },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('location')).toBe(api.href('persons', winner));

    const merged = await api.get(`/persons/${winner}`);
    expect(merged).toMatchObject({ firstName: 'Win', lastName: 'Merged' });
    expect(merged).not.toHaveProperty('birthDate');
    expect(merged['_classes']).toEqual(expect.arrayContaining(['persons', 'shareholders']));
    expect(await api.ids(`/companies/${both}/employees`)).toEqual([winner]);
    expect(((await api.get(`/invoices/${single}`))['_links'] as Json)['contact']).toMatchObject({
      href: api.href('persons', winner),
    });

    const redirect = await api.call('GET', `/persons/${loser}`);
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe(api.href('persons', winner));
    expect(await api.ids(`/persons?lastName=Merged`)).toEqual([winner]);
  });

  it('reads the loser from the last 36 characters (a bare UUID works)', async () => {
    const winner = await person();
    const loser = await person();
    expect(
      (await api.call('POST', `/persons/${winner}/merge`, { body: { loser: `junk${loser}` } })).status,
    ).toBe(204);
  });

  it.each<[string, () => Promise<[string, string, Json]>, number]>([
    ['400 when the BASIC classes differ', async () => ['persons', await person(), { loser: DEMO.acme }], 400],
    ['400 without a loser', async () => ['persons', await person(), {}], 400],
    [
      '404 when the loser cannot be resolved',
      async () => ['persons', await person(), { loser: '00000000-0000-4000-8000-000000000000' }],
      404,
    ],
    [
      '404 when the winner cannot be resolved',
      async () => ['persons', '00000000-0000-4000-8000-000000000000', { loser: DEMO.bob }],
      404,
    ],
    ['404 for an unknown typeName', async () => ['unicorns', DEMO.ann, { loser: DEMO.bob }], 404],
    [
      '409 when the loser delete violates a constraint (winner merged into itself)',
      async () => {
        const client = await company();
        await invoice(client);
        return ['companies', client, { loser: client }];
      },
      409,
    ],
  ])('%s', async (_name, setup, status) => {
    const [plural, winner, body] = await setup();
    await problem(await api.call('POST', `/${plural}/${winner}/merge`, { body }), status);
  });
});

// Each test writes 20-45 objects one after another: on the scale-out stack's MongoDB wire server
// (FerretDB, no index, a write in hundreds of milliseconds under load) that outlasts the default
// 30 s, so each has a longer limit.
const MANY_WRITES_MS = 120_000;

describe('Inverse sides in _links are bounded to the first page of their related list', () => {
  type Side = { href: string; values?: { href: string; name: string | null }[]; more?: boolean };
  const invoicesOf = async (companyId: string) =>
    ((await api.get(`/companies/${companyId}`))['_links'] as Record<string, Side>)['invoices'];

  it(
    'renders the first 20 linkers in creation order with more: true, and every linker up to 20',
    async () => {
      const client = await company();
      const created: string[] = [];
      for (let i = 0; i < 21; i += 1) created.push(await invoice(client));
      const side = await invoicesOf(client);
      const self = api.href('companies', client);
      expect(side?.href).toBe(`${self}/invoices`);
      expect(side?.more).toBe(true);
      expect(side?.values?.map((value) => value.href.slice(-36))).toEqual(created.slice(0, 20));
      expect(side?.values?.map((value) => value.href.slice(-36))).toEqual(
        await api.ids(`/companies/${client}/invoices`),
      );
      expect(await api.ids(`/companies/${client}/invoices?page=1`)).toEqual(created.slice(20));

      expect((await api.call('DELETE', `/invoices/${created[0]}`)).status).toBe(200);
      const whole = await invoicesOf(client);
      expect(whole).not.toHaveProperty('more');
      expect(whole?.values?.map((value) => value.href.slice(-36))).toEqual(created.slice(1));
    },
    MANY_WRITES_MS,
  );

  it(
    'bounds the inverse sides of every object on a list page, leaving forward sides whole',
    async () => {
      const staff: string[] = [];
      for (let i = 0; i < 21; i += 1) staff.push(await person());
      const legalName = `Co ${unique()}`;
      const client = await company({
        legalName,
        employees: staff.map((id) => api.href('persons', id)),
      });
      for (let i = 0; i < 21; i += 1) await invoice(client);
      const rows = await api.rows(`/companies?legalName=${encodeURIComponent(legalName)}`);
      expect(rows.map(idOf)).toEqual([client]);
      const links = rows[0]?.['_links'] as Record<string, Side>;
      expect(links['invoices']?.values).toHaveLength(20);
      expect(links['invoices']?.more).toBe(true);
      expect(links['employees']?.values?.map((value) => value.href.slice(-36))).toEqual(staff);
      expect(links['employees']).not.toHaveProperty('more');
    },
    MANY_WRITES_MS,
  );
});

describe('Bad input: never a 500, never a partial write', () => {
  it.each<[string, string, string, unknown, number]>([
    ['a 20 MB body', 'POST', '/companies', `{"legalName":"${'x'.repeat(20 * 1024 * 1024)}"}`, 413],
    ['malformed JSON', 'POST', '/companies', '{"legalName":', 400],
    ['a JSON array body', 'POST', '/companies', '[]', 400],
    ['a query-string object filter', 'GET', '/companies?legalName[$ne]=x&revenue[$gt]=0', undefined, 200],
    ['a non-UUID id', 'GET', '/companies/..%2F..%2Fetc', undefined, 404],
    ['page -1 and size 0', 'GET', '/companies?page=-1&size=0', undefined, 200],
    ['page 10^9 and size 10^6', 'GET', '/companies?page=1000000000&size=1000000', undefined, 200],
    [
      'a wrong JSON type for a relation',
      'POST',
      '/invoices',
      { invoiceNumber: 'B-1', amount: 1, client: 5 },
      400,
    ],
  ])('%s', async (_name, method, route, body, status) => {
    const res = await api.call(method, route, { body });
    expect(res.status).toBe(status);
  });

  it.each<[string, string, number]>([
    ['sort by a multi-valued relation (kept in default order)', '/companies?sort=employees', 200],
    ['sort with an empty name (unparseable sort)', '/companies?sort=,desc', 400],
    ['sort with an unknown direction', '/companies?sort=legalName,sideways', 400],
    ['sort with an unknown name (kept in default order)', '/companies?sort=colour,desc', 200],
    ['distinct on an inverse side', '/companies/distinct?distinct=invoices', 200],
    ['an _href filter that is no URI', '/companies?invoices_href=xyz', 200],
    ['an empty _class', '/companies?_class=,,', 200],
    ['a range on a LIST field', '/invoices?status_from=a&status_to=z', 200],
    ['a number too large for a double', '/invoices?amount_from=1e999', 400],
    ['a page number beyond any integer', '/companies?page=99999999999999999999', 200],
    ['blank page and size', '/companies?size=%20&page=%20', 200],
    ['a NUL byte in a filter', '/companies?legalName=%00', 200],
    [
      'prototype names as filters',
      '/companies?constructor=1&__proto__=1&toString=1&hasOwnProperty.name=x',
      200,
    ],
    ['search syntax in q', '/companies?q=%22%27()*', 200],
    ['a forged search cursor', '/companies?q=a&cursor=zzz', 400],
    ['values of a relation name', '/companies/values/employees', 400],
    ['values of a SECRET field', '/companies/values/apiToken', 400],
    ['a related path under items', `/items/${DEMO.acme}/invoices`, 404],
    ['Get own of the system account', '/companies/own', 404],
  ])('GET with %s', async (_name, route, status) => {
    expect((await api.call('GET', route)).status).toBe(status);
  });

  it.each<[string, string, string, unknown, number]>([
    ['null in a relation array', 'POST', '/companies', { legalName: 'x', employees: [null] }, 400],
    ['an object in a relation array', 'POST', '/companies', { legalName: 'x', employees: [{}] }, 400],
    ['a JSON null body', 'POST', '/companies', 'null', 400],
    ['a JSON string body', 'POST', '/companies', '"text"', 400],
    ['a numeric loser', 'POST', `/companies/${DEMO.globex}/merge`, { loser: 5 }, 400],
    [
      'an array patch in a merge',
      'POST',
      `/companies/${DEMO.globex}/merge`,
      { loser: DEMO.acme, patch: [] },
      400,
    ],
    ['a role class without ?class=', 'POST', `/companies/${DEMO.acme}/shareholders`, {}, 400],
    ['a create under items', 'POST', '/items', {}, 404],
  ])('%s', async (_name, method, route, body, status) => {
    const before = (await api.get<{ total: number }>('/companies/aggregations')).total;
    expect((await api.call(method, route, { body })).status).toBe(status);
    expect((await api.get<{ total: number }>('/companies/aggregations')).total).toBe(before);
  });

  it('writes nothing when a later relation in the body does not resolve', async () => {
    const before = (await api.get<{ total: number }>('/companies/aggregations')).total;
    const res = await api.call('POST', '/companies', {
      body: {
        legalName: 'Partial',
        employees: [
          api.href('persons', DEMO.ann),
          api.href('persons', '00000000-0000-4000-8000-000000000000'),
        ],
      },
    });
    await problem(res, 404);
    expect((await api.get<{ total: number }>('/companies/aggregations')).total).toBe(before);
    expect(await api.ids('/companies?legalName=Partial')).toEqual([]);
  });
});

describe('loadDefaultData', () => {
  it('is idempotent: a second load creates nothing and skips every default object', async () => {
    const res = await api.call('POST', '/loadDefaultData');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ created: 0, skipped: 11 });
    expect(idOf(await api.get(`/persons/${DEMO.ann}`))).toBe(DEMO.ann);
  });
});
