/**
 * The read side of the object data API through the real server, on the demo tenant's default
 * data: List/query (one scenario per row of the filter table and per rule), paging and links,
 * sorting, related lists, Distinct, Field values, Aggregations, DataObject rendering, Get one and
 * Get own. The suite only reads, so every scenario sees the default data as loaded.
 */
import { get } from 'node:http';
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createProfile, createProfileKey } from './support/accounts.js';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';

let api: DataApi;
let idp: Idp;

beforeAll(async () => {
  idp = await startIdp();
  api = await startDataServer({ env: idp.env });
});
afterAll(async () => {
  await api?.server.stop();
  await idp?.stop();
});

const sorted = (ids: readonly string[]) => [...ids].sort();

describe('List: one scenario per row of the filter table', () => {
  it.each<[string, string, string[]]>([
    ['field=value (value field)', '/companies?legalName=Acme BV', [DEMO.acme]],
    ['field=value (relation, by related name)', '/invoices?client=Acme BV', [DEMO.invoice1, DEMO.invoice2]],
    ['relation.name=value', '/invoices?client.name=Globex NV', [DEMO.invoice3]],
    ['field_from=value', '/invoices?amount_from=1000', [DEMO.invoice1, DEMO.invoice3]],
    ['field_to=value', '/invoices?amount_to=1000', [DEMO.invoice1, DEMO.invoice2]],
    ['_from and _to merged into one range', '/invoices?amount_from=500&amount_to=2000', [DEMO.invoice1]],
    ['field_startswith=value (value field)', '/persons?lastName_startswith=Ja', [DEMO.bob]],
    ['field_startswith=value (relation name)', '/invoices?client_startswith=Glob', [DEMO.invoice3]],
    ['field_notempty', '/companies?foundedOn_notempty', [DEMO.acme]],
    ['field= (empty value)', '/companies?foundedOn=', [DEMO.globex]],
    ['relation_href=<URI>', `/invoices?client_href=/data/{t}/companies/${DEMO.globex}`, [DEMO.invoice3]],
    ['relation_href=<UUID>', `/invoices?client_href=${DEMO.acme}`, [DEMO.invoice1, DEMO.invoice2]],
    ['_class=name (objects that also have the class)', '/persons?_class=shareholders', [DEMO.carla]],
    ['_class=name,name (every listed class)', '/persons?_class=shareholders,persons', [DEMO.carla]],
  ])('%s', async (_row, route, expected) => {
    expect(sorted(await api.ids(route.replace('{t}', api.tenant)))).toEqual(sorted(expected));
  });
});

describe('List: q=value (full text, rule 3)', () => {
  it.each<[string, string, string[]]>([
    ['a prefix of a word', '/persons?q=an', [DEMO.ann]],
    ['several terms combine with AND', '/companies?q=acme bv', [DEMO.acme]],
    [
      'structured filters on the same request are ignored',
      '/companies?q=globex&legalName=Acme BV',
      [DEMO.globex],
    ],
    ['the class scope applies', '/companies?q=ann', []],
  ])('%s', async (_name, route, expected) => {
    expect(sorted(await api.ids(route))).toEqual(sorted(expected));
  });

  it('pages with a cursor carried in next', async () => {
    const first = await api.get<{ _embedded: { persons: Json[] }; _links: Record<string, { href: string }> }>(
      '/persons?q=example&size=2',
    );
    expect(first._embedded.persons).toHaveLength(2);
    const next = first._links['next']?.href ?? '';
    expect(new URL(next, 'http://x').searchParams.get('cursor')).toBeTruthy();
    const second = await api.rows(next.slice(api.path('').length));
    expect([...first._embedded.persons, ...second].map(idOf).sort()).toEqual(
      sorted([DEMO.ann, DEMO.bob, DEMO.carla]),
    );
  });
});

describe('List: filters per operator and data type', () => {
  it.each<[string, string, string[]]>([
    ['TEXT equals', '/persons?firstName=Bob', [DEMO.bob]],
    ['EMAIL equals', '/persons?email=carla@globex.example', [DEMO.carla]],
    ['INTEGER range', '/companies?employeeCount_from=100', [DEMO.globex]],
    ['CURRENCY equals', '/invoices?amount=250', [DEMO.invoice2]],
    ['PERCENTAGE equals', '/invoices?vatRate=9', [DEMO.invoice2]],
    ['DECIMAL range', '/invoiceLines?quantity_from=2', [DEMO.line1]],
    ['BOOLEAN equals', '/companies?active=true', [DEMO.acme, DEMO.globex]],
    ['DATE range', '/invoices?invoiceDate_from=2026-02-01&invoiceDate_to=2026-02-05', [DEMO.invoice2]],
    ['TIME equals', '/companies?openingTime=08:30', [DEMO.acme]],
    ['LIST equals by key', '/invoices?status=paid', [DEMO.invoice3]],
    ['history field filters on its current value', '/invoices?status=sent', [DEMO.invoice1]],
    ['multi-valued TEXT equals any element', '/persons?phoneNumbers=%2B31 20 555 0101', [DEMO.ann]],
    ['formula field', '/invoices?clientName=Globex NV', [DEMO.invoice3]],
    ['inverse relation by name', '/companies?invoices=2026-0003', [DEMO.globex]],
    ['multi-valued relation by name', '/companies?employees=Bob Jansen', [DEMO.acme]],
    ['filters combine with AND', '/invoices?client=Acme BV&status=draft', [DEMO.invoice2]],
  ])('%s', async (_name, route, expected) => {
    expect(sorted(await api.ids(route))).toEqual(sorted(expected));
  });

  const allCompanies = [DEMO.acme, DEMO.globex];
  it.each<[string, string]>([
    ['an unknown field name (rule 2)', '/companies?colour=red'],
    ['an unknown relation name', '/companies?owner.name=x'],
    ['a JSON field (rule 1: not indexed)', '/companies?profile=x'],
    ['an ARRAY field (not indexed)', '/companies?tags=customer'],
    ['a SECRET field (not indexed)', '/companies?apiToken=x'],
    ['a hidden field', '/companies?displayName=ACME BV'],
    ['a range on a BOOLEAN (not orderable)', '/companies?active_from=true'],
    ['a query-string object (f[$ne]=)', '/companies?legalName[$ne]=x'],
    ['sort, page and size are never filters', '/companies?sort=legalName&page=0&size=20'],
  ])('ignores %s', async (_name, route) => {
    expect(sorted(await api.ids(route))).toEqual(allCompanies);
  });

  it.each([
    ['/companies?employeeCount=many', 'employeeCount'],
    ['/companies?active=yes', 'active'],
    ['/companies?foundedOn_from=2020-13-45', 'foundedOn_from'],
  ])('answers 400 naming the parameter for a value of the wrong type: %s', async (route, parameter) => {
    const res = await api.call('GET', route);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await res.json()) as Json).toMatchObject({ errors: [{ field: parameter }] });
  });

  it('lists subclasses under an abstract class and gained classes under a role class', async () => {
    expect(sorted(await api.ids('/organisations'))).toEqual([DEMO.acme, DEMO.globex]);
    expect(await api.ids('/shareholders')).toEqual([DEMO.carla]);
  });

  it('answers 404 for an unknown class', async () => {
    expect((await api.call('GET', '/unicorns')).status).toBe(404);
  });
});

describe('List: sorting, paging and links', () => {
  it.each<[string, string, string[]]>([
    [
      'by a value field, ascending by default',
      '/invoices?sort=amount',
      [DEMO.invoice2, DEMO.invoice1, DEMO.invoice3],
    ],
    [
      'by a value field, descending',
      '/invoices?sort=amount,desc',
      [DEMO.invoice3, DEMO.invoice1, DEMO.invoice2],
    ],
    ['by a text field, descending', '/persons?sort=firstName,desc', [DEMO.carla, DEMO.bob, DEMO.ann]],
  ])('sorts %s', async (_name, route, expected) => {
    expect(await api.ids(route)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['ascending', 'client'],
    ['descending', 'client,desc'],
  ])('sorts by a relation (the related object name) %s', async (direction, sort) => {
    const ids = await api.ids(`/invoices?sort=${sort}`);
    const globexAt = direction === 'ascending' ? 2 : 0;
    expect(ids[globexAt]).toBe(DEMO.invoice3);
    expect(sorted(ids.filter((id) => id !== DEMO.invoice3))).toEqual([DEMO.invoice1, DEMO.invoice2]);
  });

  type Links = Record<string, { href: string } | undefined>;
  const page = (route: string) => api.get<{ _embedded: Record<string, Json[]>; _links: Links }>(route);
  const query = (href: string | undefined) =>
    Object.fromEntries(new URL(href ?? '', 'http://x').searchParams);

  it('has self, next and excel on a first page with more rows, no first or prev', async () => {
    const { _embedded, _links } = await page('/invoices?sort=amount&size=2&status_notempty');
    expect(_embedded['invoices']).toHaveLength(2);
    expect(Object.keys(_links).sort()).toEqual(['excel', 'next', 'self']);
    expect(query(_links['next']?.href)).toEqual({
      sort: 'amount',
      status_notempty: '',
      page: '1',
      size: '2',
      after: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
    });
    expect(_links['next']?.href.startsWith(api.path('/invoices?'))).toBe(true);
    expect(_links['excel']?.href).toBe(api.path('/excel/invoices?sort=amount&status_notempty='));
  });

  it('has first and prev past page 0 and no next on the last page', async () => {
    const { _embedded, _links } = await page('/invoices?sort=amount&size=2&page=1');
    expect(_embedded['invoices']?.map(idOf)).toEqual([DEMO.invoice3]);
    expect(Object.keys(_links).sort()).toEqual(['excel', 'first', 'prev', 'self']);
    expect(query(_links['first']?.href)).toEqual({ sort: 'amount', page: '0', size: '2' });
    expect(query(_links['prev']?.href)).toEqual({ sort: 'amount', page: '0', size: '2' });
  });

  it('returns exactly size rows when one more exists (the extra row only decides next)', async () => {
    const { _embedded, _links } = await page('/invoices?size=1');
    expect(_embedded['invoices']).toHaveLength(1);
    expect(_links['next']).toBeDefined();
  });

  it.each<[string, string, number]>([
    ['page -1 is page 0', '/persons?page=-1', 3],
    ['page 10^9 is an empty page', '/persons?page=1000000000', 0],
    ['size 0 is clamped to 1', '/persons?size=0', 1],
    ['size 10^6 is clamped to the maximum', '/persons?size=1000000', 3],
    ['non-numeric page and size use the defaults', '/persons?page=x&size=y', 3],
  ])('clamps bad paging: %s', async (_name, route, rows) => {
    const res = await api.call('GET', route);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { _embedded: { persons: Json[] }; _links: Links };
    expect(body._embedded.persons).toHaveLength(rows);
    if (route.includes('size=1000000')) expect(query(body._links['self']?.href)['size']).toBe('1000');
  });

  /** The status of a GET of `route` with `If-None-Match` (node:http: fetch adds `Cache-Control: no-cache`). */
  const revalidate = (route: string, etag: string) =>
    new Promise<number>((resolve, reject) => {
      const headers = { 'X-API-Key': api.systemKey, 'If-None-Match': etag };
      get(`${api.server.baseUrl}${api.path(route)}`, { headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });

  it('answers a page with its length, a weak ETag, 304 to If-None-Match with it, and HEAD bodiless', async () => {
    const res = await api.call('GET', '/persons?sort=firstName');
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    const parsed = JSON.parse(body.toString('utf8')) as { _embedded: { persons: Json[] } };
    expect(parsed._embedded.persons.map(idOf)).toEqual([DEMO.ann, DEMO.bob, DEMO.carla]);
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[0-9a-f]+-[\w+/]{27}"$/);
    expect(await revalidate('/persons?sort=firstName', etag)).toBe(304);
    expect(await revalidate('/persons?sort=firstName,desc', etag)).toBe(200);
    const head = await api.call('HEAD', '/persons?sort=firstName');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(body.length));
    expect(await head.text()).toBe('');
  });

  it('keeps the related path shape in links', async () => {
    const { _embedded, _links } = await page(`/companies/${DEMO.acme}/invoices?size=1&sort=amount`);
    expect(_embedded['invoices']?.map(idOf)).toEqual([DEMO.invoice2]);
    expect(_links['next']?.href.startsWith(api.path(`/companies/${DEMO.acme}/invoices?`))).toBe(true);
    expect(_links['excel']?.href).toBe(api.path(`/excel/companies/${DEMO.acme}/invoices?sort=amount`));
  });
});

describe('Related list', () => {
  it.each<[string, string, string[]]>([
    ['by inverse name', `/companies/${DEMO.acme}/invoices`, [DEMO.invoice1, DEMO.invoice2]],
    ['by forward multi-valued relation name', `/companies/${DEMO.acme}/employees`, [DEMO.ann, DEMO.bob]],
    [
      'by the plural of the only connecting class',
      `/invoices/${DEMO.invoice1}/invoiceLines`,
      [DEMO.line1, DEMO.line2],
    ],
    ['with filters', `/companies/${DEMO.acme}/invoices?status=sent`, [DEMO.invoice1]],
    ['under a gained class', `/shareholders/${DEMO.carla}/shareholdings`, [DEMO.acme]],
  ])('lists %s', async (_name, route, expected) => {
    expect(sorted(await api.ids(route))).toEqual(sorted(expected));
  });

  it.each([
    [
      'a missing reference object',
      `/companies/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/invoices`,
      404,
    ],
    ['an unknown type name', `/companies/${DEMO.acme}/unicorns`, 404],
    ['classes no relation connects', `/companies/${DEMO.acme}/invoiceLines`, 400],
  ])('answers for %s', async (_name, route, status) => {
    expect((await api.call('GET', route)).status).toBe(status);
  });
});

describe('Distinct', () => {
  const values = (route: string) => api.get<{ values: { value: unknown; count: number }[] }>(route);

  it.each<[string, string, { value: unknown; count: number }[]]>([
    [
      'a value field, by value',
      '/invoices/distinct?distinct=status',
      [
        { value: 'draft', count: 1 },
        { value: 'paid', count: 1 },
        { value: 'sent', count: 1 },
      ],
    ],
    [
      'narrowed by filters',
      '/invoices/distinct?distinct=status&client=Acme BV',
      [
        { value: 'draft', count: 1 },
        { value: 'sent', count: 1 },
      ],
    ],
    [
      'under the related path',
      `/companies/${DEMO.globex}/invoices/distinct?distinct=vatRate`,
      [{ value: 21, count: 1 }],
    ],
    [
      'by count descending',
      '/invoices/distinct?distinct=vatRate&sort=count,desc',
      [
        { value: 21, count: 2 },
        { value: 9, count: 1 },
      ],
    ],
    [
      'by count ascending',
      '/invoices/distinct?distinct=vatRate&sort=count',
      [
        { value: 9, count: 1 },
        { value: 21, count: 2 },
      ],
    ],
  ])('%s', async (_name, route, expected) => {
    expect((await values(route)).values).toEqual(expected);
  });

  it('gives relation buckets {name, href} and the null bucket last', async () => {
    expect((await values('/invoices/distinct?distinct=contact')).values).toEqual([
      { value: { name: 'Ann de Vries', href: api.href('persons', DEMO.ann) }, count: 1 },
      { value: { name: 'Carla Smit', href: api.href('persons', DEMO.carla) }, count: 1 },
      { value: null, count: 1 },
    ]);
  });

  it.each(['', 'distinct=colour', 'distinct=profile'])('answers 400 for target %p', async (query) => {
    expect((await api.call('GET', `/companies/distinct?${query}`)).status).toBe(400);
  });
});

describe('Field values', () => {
  it('lists {value, link} per object with a value, not de-duplicated, narrowed by filters', async () => {
    const all = await api.get<{ value: unknown; link: string }[]>('/invoices/values/vatRate');
    expect(all).toHaveLength(3);
    expect(all.filter((entry) => entry.value === 21)).toHaveLength(2);
    expect(await api.get('/invoices/values/amount?status=paid')).toEqual([
      { value: 4200, link: api.href('invoices', DEMO.invoice3) },
    ]);
  });

  it('leaves out objects without a value and refuses hidden fields', async () => {
    expect(await api.get('/companies/values/foundedOn')).toEqual([
      { value: '2004-03-01', link: api.href('companies', DEMO.acme) },
    ]);
    expect((await api.call('GET', '/companies/values/displayName')).status).toBe(400);
  });
});

describe('Aggregations', () => {
  it.each<[string, string, Json]>([
    ['rule 2: only total without parameters', '/invoices/aggregations', { total: 3 }],
    [
      'sum, avg and count',
      '/invoices/aggregations?sum=amount&avg=amount&count=amount',
      {
        total: 3,
        sum: { amount: 5450 },
        avg: { amount: 5450 / 3 },
        count: { amount: 3 },
      },
    ],
    [
      'rule 1: same filters, paging ignored',
      '/invoices/aggregations?sum=amount&client=Acme BV&size=1&page=3',
      {
        total: 2,
        sum: { amount: 1250 },
      },
    ],
    [
      'rule 3: a function with no valid field is omitted',
      '/invoices/aggregations?sum=invoiceNumber&avg=amount',
      {
        total: 3,
        avg: { amount: 5450 / 3 },
      },
    ],
    [
      'rule 4: non-numeric fields silently ignored',
      '/companies/aggregations?sum=revenue,legalName,active',
      {
        total: 2,
        sum: { revenue: 99250000 },
      },
    ],
    [
      'rule 5: under the related path',
      `/companies/${DEMO.acme}/invoices/aggregations?sum=total`,
      {
        total: 2,
        sum: { total: 1210 + 272.5 },
      },
    ],
  ])('%s', async (_name, route, expected) => {
    const body = await api.get(route);
    expect(Object.keys(body).sort()).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) {
      if (typeof value === 'number') expect(body[key]).toBe(value);
      else
        for (const [field, number] of Object.entries(value as Json)) {
          expect((body[key] as Json)[field]).toBeCloseTo(number as number, 6);
        }
    }
  });
});

describe('DataObject and Get one', () => {
  it('renders a company per the DataObject table', async () => {
    const acme = await api.get(`/companies/${DEMO.acme}`);
    expect(acme).toMatchObject({
      _class: 'companies',
      legalName: 'Acme BV',
      registrationNumber: '12345678',
      companyType: 'bv',
      foundedOn: '2004-03-01',
      employeeCount: 42,
      revenue: 1250000,
      active: true,
      openingTime: '08:30',
      tags: ['customer', 'manufacturing'],
      profile: { sector: 'manufacturing', rating: 'A' },
    });
    expect(acme['_classes']).toEqual(expect.arrayContaining(['companies', 'organisations']));
    expect(acme['_creationDate']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(acme['_modificationDate']).toMatch(/Z$/);
    expect(acme).not.toHaveProperty('id');
    expect(acme).not.toHaveProperty('displayName');
    expect(acme).not.toHaveProperty('lastContactAt');
  });

  it('renders _links: own links, multi-valued relations and inverse sides', async () => {
    const acme = await api.get(`/companies/${DEMO.acme}`);
    const links = acme['_links'] as Record<string, Json>;
    const self = api.href('companies', DEMO.acme);
    const classes = encodeURIComponent((acme['_classes'] as string[]).join(','));
    expect(links['_self']).toEqual({ href: self });
    expect(links['_scripts']).toEqual({ href: `/scripts/${api.tenant}/companies/${DEMO.acme}` });
    expect(links['_metadata']).toEqual({ href: `/metadata/${api.tenant}/dataObject?classes=${classes}` });
    expect(links['_relatedDataObject']).toEqual({
      href: `/metadata/${api.tenant}/relatedDataObject?classes=${classes}`,
    });
    expect(links['_form']).toEqual({ href: `/metadata/${api.tenant}/form?classes=${classes}` });
    expect(links['employees']).toEqual({
      href: `${self}/employees`,
      values: expect.arrayContaining([
        { href: api.href('persons', DEMO.ann), name: 'Ann de Vries' },
        { href: api.href('persons', DEMO.bob), name: 'Bob Jansen' },
      ]),
    });
    expect(links['shareholders']).toEqual({
      href: `${self}/shareholders`,
      values: [{ href: api.href('persons', DEMO.carla), name: 'Carla Smit' }],
    });
    expect(links['invoices']).toMatchObject({ href: `${self}/invoices` });
    expect((links['invoices']?.['values'] as unknown[]).length).toBe(2);
  });

  it('renders single relations as {href, name}, formulas, scripts, defaults and history', async () => {
    const invoice = await api.get(`/invoices/${DEMO.invoice1}`);
    const links = invoice['_links'] as Record<string, Json>;
    expect(links['client']).toEqual({ href: api.href('companies', DEMO.acme), name: 'Acme BV' });
    expect(links['contact']).toEqual({ href: api.href('persons', DEMO.ann), name: 'Ann de Vries' });
    expect(links['lines']).toMatchObject({ href: `${api.href('invoices', DEMO.invoice1)}/lines` });
    expect(invoice).toMatchObject({
      vatAmount: 210,
      total: 1210,
      linesTotal: 1000,
      clientName: 'Acme BV',
      dueDate: '2026-02-14',
      status: {
        current: 'sent',
        history: [{ value: 'sent', validFrom: expect.any(String), modifiedBy: 'system' }],
      },
    });
    expect(invoice).not.toHaveProperty('internalNote');
    const draft = await api.get(`/invoices/${DEMO.invoice2}`);
    expect(draft['_links']).not.toHaveProperty('contact');
  });

  it('gives objects the classes gained through relations', async () => {
    const carla = await api.get(`/persons/${DEMO.carla}`);
    expect(carla['_classes']).toEqual(expect.arrayContaining(['persons', 'shareholders']));
    expect((carla['_links'] as Record<string, Json>)['shareholdings']).toMatchObject({
      values: [{ href: api.href('companies', DEMO.acme), name: 'Acme BV' }],
    });
  });

  it.each<[string, () => string, number]>([
    ['its own class', () => `/persons/${DEMO.ann}`, 200],
    ['a class it inherits', () => `/organisations/${DEMO.acme}`, 200],
    ['a gained class', () => `/shareholders/${DEMO.carla}`, 200],
    ['rule 2: a role class it could still gain', () => `/shareholders/${DEMO.ann}`, 200],
    ['rule 2: a class its BASIC class could never hold', () => `/invoices/${DEMO.ann}`, 404],
    ['items (any object)', () => `/items/${DEMO.invoice1}`, 200],
    ['an unknown class', () => `/unicorns/${DEMO.ann}`, 404],
    ['a missing id', () => `/persons/00000000-0000-4000-8000-000000000000`, 404],
    ['a non-UUID id', () => `/persons/not-a-uuid`, 404],
  ])('Get one under %s', async (_name, route, status) => {
    const res = await api.call('GET', route());
    expect(res.status).toBe(status);
    if (status === 200) expect(((await res.json()) as Json)['_class']).toBeDefined();
  });
});

describe('Get own: one scenario per row of the table', () => {
  it('signed-in user: the object the profile points at', async () => {
    await createProfile(api, { sub: 'own-signed-in', role: 'member', objectId: DEMO.bob });
    const token = await idp.token({ sub: 'own-signed-in' });
    const res = await api.call('GET', '/persons/own', {
      key: null,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(idOf((await res.json()) as Json)).toBe(DEMO.bob);
  });

  it.each<[string, string | null, string, number]>([
    ['system API key: 404 (no account)', null, 'persons', 404],
    ["user-bound API key: the object the key's profile points at", 'linked', 'persons', 200],
    ['the linked object lacks the class: 404', 'linked', 'companies', 404],
    ['no linked object: 404', 'unlinked', 'persons', 404],
  ])('%s', async (_name, who, typeName, status) => {
    const key = who === null ? undefined : await keyFor(who === 'linked' ? DEMO.ann : null);
    const res = await api.call('GET', `/${typeName}/own`, { key });
    expect(res.status).toBe(status);
    if (status === 200) expect(idOf((await res.json()) as Json)).toBe(DEMO.ann);
  });
});

const keys = new Map<string | null, string>();
/** A user-bound API key of a member profile linked to `objectId` (or to nothing). */
async function keyFor(objectId: string | null): Promise<string> {
  const known = keys.get(objectId);
  if (known) return known;
  const profileId = await createProfile(api, { sub: `user-${keys.size}`, role: 'member', objectId });
  const key = await createProfileKey(api, profileId);
  keys.set(objectId, key);
  return key;
}
