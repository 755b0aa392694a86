/**
 * Full-text search through the real server (docs/search.md): List rule 3 (`q` on lists), Global
 * search (`GET /data/{tenant}/search`), cursor paging and its stability under concurrent inserts, the
 * index kept true by every write, bad input, search under record-level access control, and the
 * tenant rebuild (`POST /admin/{tenant}/rebuild`, `odp rebuild`).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { DEMO, DataApi, idOf, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { createAccount } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';
import { REPO_ROOT } from './support/server.js';

interface Page {
  readonly _embedded: Record<string, Json[]>;
  readonly _links: Record<string, { href: string }>;
}

let api: DataApi;
let viewerAnn: TestAccount;
let memberCarla: TestAccount;

beforeAll(async () => {
  api = await startDataServer();
  viewerAnn = await createAccount(api, { name: 'search-ann', role: 'viewer', objectId: DEMO.ann });
  memberCarla = await createAccount(api, { name: 'search-carla', role: 'member', objectId: DEMO.carla });
}, 60_000);

afterAll(async () => {
  await api.server.stop();
});

/** GET of a route under `/data/{tenant}`: status and parsed body (a page or a problem). */
async function fetchJson(route: string, key?: string): Promise<{ status: number; body: Json; text: string }> {
  const res = await api.call('GET', route, key === undefined ? {} : { key });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, text };
}

async function page(route: string, key?: string): Promise<Page> {
  const { status, text } = await fetchJson(route, key);
  if (status !== 200) throw new Error(`GET ${route}: ${status} ${text}`);
  return JSON.parse(text) as Page;
}

function rowsOf(body: Page): Json[] {
  return Object.values(body._embedded).flat();
}

/** Ids found by a list or search route (one page of the default size). */
async function found(route: string, key?: string): Promise<string[]> {
  return rowsOf(await page(route, key))
    .map(idOf)
    .sort();
}

/** The route of a `next` link, relative to `/data/{tenant}`. */
function routeOf(href: string): string {
  return href.slice(api.path('').length);
}

/** Follows `next` from `route` until it is absent; `between` runs after each page. */
async function allPages(
  route: string,
  options: { key?: string; between?: () => Promise<void> } = {},
): Promise<Page[]> {
  const pages: Page[] = [];
  let next: string | undefined = route;
  while (next !== undefined) {
    const current = await page(next, options.key);
    pages.push(current);
    const href = current._links['next']?.href;
    next = href === undefined ? undefined : routeOf(href);
    if (next !== undefined) await options.between?.();
  }
  return pages;
}

const q = (text: string) => encodeURIComponent(text);
const sorted = (ids: readonly string[]) => [...ids].sort();

async function createPerson(firstName: string, lastName: string, extra: Json = {}): Promise<string> {
  return api.create('persons', { firstName, lastName, ...extra });
}

describe('List rule 3: q on lists is served from the search index', () => {
  let zoe: string;
  let renee: string;
  beforeAll(async () => {
    zoe = await createPerson('Zoë', 'Müller-Åström');
    renee = await createPerson('Renee', 'Lefevre');
  });

  it.each<[string, () => string, () => string[]]>([
    ['each term is a prefix of a word', () => '/persons?q=jans', () => [DEMO.bob]],
    ['terms combine with AND (all present)', () => `/persons?q=${q('ann vries')}`, () => [DEMO.ann]],
    ['terms combine with AND (one absent)', () => `/persons?q=${q('ann jansen')}`, () => []],
    [
      'terms match across fields of the one combined field',
      () => `/persons?q=${q('bob acme')}`,
      () => [DEMO.bob],
    ],
    ['case-insensitive', () => '/companies?q=ACME', () => [DEMO.acme]],
    [
      'accent-insensitive: plain query, accented text',
      () => `/persons?q=${q('zoe muller astrom')}`,
      () => [zoe],
    ],
    [
      'accent-insensitive: accented query, plain text',
      () => `/persons?q=${q('Renée Lefèvre')}`,
      () => [renee],
    ],
    ['accented query, accented text, other case', () => `/persons?q=${q('ZOË MÜLL')}`, () => [zoe]],
    [
      'structured filters on the same request are ignored',
      () => `/companies?q=globex&legalName=${q('Acme BV')}&employeeCount_to=1`,
      () => [DEMO.globex],
    ],
    [
      'sort and page parameters do not filter',
      () => '/companies?q=acme&sort=legalName&page=3',
      () => [DEMO.acme],
    ],
    ['class scope: objects of other classes are not found', () => '/companies?q=ann', () => []],
    ['class scope includes subclasses', () => '/organisations?q=acme', () => [DEMO.acme]],
    ['class scope includes gained classes', () => '/shareholders?q=smit', () => [DEMO.carla]],
    [
      'a single field cannot be targeted (field:value is two words)',
      () => `/companies?q=${q('legalName:acme')}`,
      () => [],
    ],
  ])('%s', async (_rule, route, expected) => {
    expect(await found(route())).toEqual(sorted(expected()));
  });

  it('indexes every searchable value field but not JSON, SECRET or hidden ones', async () => {
    const id = await api.create('companies', {
      legalName: 'Indexed Fields BV',
      registrationNumber: 'RN-qqregno',
      tags: ['qqarraytag'],
      profile: { sector: 'qqjsonvalue' },
      apiToken: 'qqsecretvalue',
    });
    expect(await found('/companies?q=qqregno')).toEqual([id]);
    expect(await found('/companies?q=qqarraytag')).toEqual([id]);
    expect(await found('/companies?q=qqjsonvalue')).toEqual([]);
    expect(await found('/companies?q=qqsecretvalue')).toEqual([]);
    // displayName is a hidden formula field: upper(legalName); its value must not be searchable on its own.
    expect(await found(`/companies?q=${q('INDEXED FIELDS')}`)).toEqual([id]);
  });
});

describe('Global search', () => {
  it('rule 1: without classes, the tenant generalSearchClasses (companies, persons) are the scope', async () => {
    // Invoices of Acme carry "Acme BV" in their client name too, but invoices are not in the scope.
    expect(await found('/search?q=acme')).toEqual(sorted([DEMO.acme, DEMO.ann, DEMO.bob]));
  });

  it('classes overrides the default scope for the request', async () => {
    expect(await found('/search?q=2026&classes=invoices')).toEqual(
      sorted([DEMO.invoice1, DEMO.invoice2, DEMO.invoice3]),
    );
    expect(await found('/search?q=acme&classes=companies')).toEqual([DEMO.acme]);
  });

  it('the class scope includes subclasses and gained classes', async () => {
    expect(await found('/search?q=acme&classes=organisations')).toEqual([DEMO.acme]);
    expect(await found('/search?q=example&classes=shareholders')).toEqual([DEMO.carla]);
  });

  it('rule 2: neither classes nor generalSearchClasses is 400', async () => {
    const modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-search-model-'));
    try {
      cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
      writeFileSync(path.join(modelDir, 'tenant.json'), JSON.stringify({ version: 2, kind: 'tenant' }));
      const tenant = String(
        (await api.server.odp(['tenant', 'create', '--name', 'no-scope', '--model', modelDir]))['id'],
      );
      const key = String((await api.server.odp(['key', 'create', '--tenant', tenant]))['key']);
      const other = new DataApi(api.server, tenant, key);
      const res = await other.call('GET', '/search?q=acme');
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await res.text()).toContain('generalSearchClasses');
      expect((await other.call('GET', '/search?q=acme&classes=companies')).status).toBe(200);
    } finally {
      rmSync(modelDir, { recursive: true, force: true });
    }
  });

  it('unknown classes in classes are 400 naming each of them', async () => {
    const { status, body } = await fetchJson('/search?q=acme&classes=companies,nopes,zorks');
    expect(status).toBe(400);
    expect(String(body['detail'])).toContain('nopes');
    expect(String(body['detail'])).toContain('zorks');
    expect(body['errors']).toEqual([
      { field: 'classes', message: 'unknown class nopes' },
      { field: 'classes', message: 'unknown class zorks' },
    ]);
  });

  it('a system class is unknown to a user key', async () => {
    const { status } = await fetchJson('/search?q=acme&classes=serviceCallLogs', memberCarla.key);
    expect(status).toBe(400);
  });

  it('rule 3: rows of different classes are full DataObjects, each with its own _class and _classes', async () => {
    const body = await page('/search?q=acme');
    expect(Object.keys(body._embedded)).toEqual(['companies']);
    const rows = new Map(rowsOf(body).map((row) => [idOf(row), row]));
    expect(rows.get(DEMO.acme)).toMatchObject({
      _class: 'companies',
      _classes: expect.arrayContaining(['companies', 'organisations']),
      legalName: 'Acme BV',
      employeeCount: 42,
      _links: { _self: { href: api.href('companies', DEMO.acme) } },
    });
    expect(rows.get(DEMO.ann)).toMatchObject({
      _class: 'persons',
      _classes: ['persons'],
      firstName: 'Ann',
      _links: { _self: { href: api.href('persons', DEMO.ann) } },
    });
    const single = await api.get(`/persons/${DEMO.ann}`);
    expect(rows.get(DEMO.ann)).toEqual(single);
  });

  it('rule 3: every row can be addressed under /data/{tenant}/items/{id}', async () => {
    for (const id of await found('/search?q=acme')) {
      expect((await api.call('GET', `/items/${id}`)).status).toBe(200);
    }
  });
});

describe('Global search rule 4: cursor paging', () => {
  const pagers: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 25; i += 1) pagers.push(await createPerson('Pager', `Number${i}`));
  });

  it('follows next until it is absent; every match exactly once; size and q kept in every link', async () => {
    const pages = await allPages('/search?q=pager&size=10');
    expect(pages.map((p) => rowsOf(p).length)).toEqual([10, 10, 5]);
    const ids = pages.flatMap(rowsOf).map(idOf);
    expect(sorted(ids)).toEqual(sorted(pagers));
    for (const p of pages) {
      expect(p._links['first']).toBeUndefined();
      expect(p._links['prev']).toBeUndefined();
      const self = new URL(p._links['self']?.href ?? '', 'http://x');
      expect(self.pathname).toBe(api.path('/search'));
      expect(self.searchParams.get('q')).toBe('pager');
      expect(self.searchParams.get('size')).toBe('10');
    }
    expect(pages[2]?._links['next']).toBeUndefined();
  });

  it('size defaults to 20 and is clamped to the list maximum', async () => {
    const first = await page('/search?q=pager');
    expect(rowsOf(first)).toHaveLength(20);
    expect(first._links['next']).toBeDefined();
    const huge = await page('/search?q=pager&size=100000');
    expect(rowsOf(huge)).toHaveLength(25);
    expect(new URL(huge._links['self']?.href ?? '', 'http://x').searchParams.get('size')).toBe('1000');
  });

  it('a forged, damaged or foreign cursor is 400', async () => {
    const first = await page('/search?q=pager&size=5');
    const cursor = new URL(first._links['next']?.href ?? '', 'http://x').searchParams.get('cursor') ?? '';
    const [payload, signature] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ q: 'x', mode: 'rank', max: 1e9, at: 0 })).toString('base64url')}.${signature ?? ''}`;
    for (const bad of ['nonsense', `${payload ?? ''}.AAAA`, forged, `${cursor}.x`, '']) {
      const res = await fetchJson(`/search?q=pager&size=5&cursor=${q(bad)}`);
      expect(bad === '' ? 200 : res.status).toBe(bad === '' ? 200 : 400);
    }
    // A cursor continues only the query it came from.
    expect((await fetchJson(`/search?q=acme&size=5&cursor=${q(cursor)}`)).status).toBe(400);
    expect((await fetchJson(`/search?q=pager&classes=companies&size=5&cursor=${q(cursor)}`)).status).toBe(
      400,
    );
    expect((await fetchJson(`/search?q=pager&size=5&cursor=${q(cursor)}`)).status).toBe(200);
  });

  /**
   * The guarantee (docs/search.md): the first page fixes the paging's snapshot. Objects created
   * after it never appear on its later pages, and every object that matched at the first page and
   * is not changed meanwhile appears exactly once across the pages, in the order of a single query.
   */
  it('is stable under concurrent inserts: no duplicate, no skipped row, no row inserted after the first page', async () => {
    const stable: string[] = [];
    for (let i = 0; i < 30; i += 1) stable.push(await createPerson('Steady', `Row${i}`));
    const before = rowsOf(await page('/search?q=steady&size=1000')).map(idOf);
    const inserted: string[] = [];
    const pages = await allPages('/search?q=steady&size=7', {
      between: async () => {
        inserted.push(await createPerson('Steady', 'Newcomer'));
        inserted.push(await createPerson('Steady', 'Latecomer Steady'));
        await createPerson('Unrelated', 'Person');
      },
    });
    const ids = pages.flatMap(rowsOf).map(idOf);
    expect(ids).toEqual(before);
    expect(sorted(ids)).toEqual(sorted(stable));
    expect(ids.filter((id) => inserted.includes(id))).toEqual([]);
    // A new paging sees them.
    expect(sorted(rowsOf(await page('/search?q=steady&size=1000')).map(idOf))).toEqual(
      sorted([...stable, ...inserted]),
    );
  });
});

describe('the index follows every write at once', () => {
  it('a created object is found by the next request', async () => {
    const id = await createPerson('Freshly', 'Created');
    expect(await found('/search?q=freshly')).toEqual([id]);
    expect(await found('/persons?q=freshly')).toEqual([id]);
  });

  it('a deleted object is gone at once', async () => {
    const id = await createPerson('Shortlived', 'Person');
    expect(await found('/search?q=shortlived')).toEqual([id]);
    expect((await api.call('DELETE', `/persons/${id}`)).status).toBe(200);
    expect(await found('/search?q=shortlived')).toEqual([]);
    expect(await found('/persons?q=shortlived')).toEqual([]);
  });

  it('a renamed object is found under its new name and no longer under the old one', async () => {
    const id = await api.create('companies', { legalName: 'Oldname Holding' });
    expect(await found('/search?q=oldname')).toEqual([id]);
    expect(
      (await api.call('PATCH', `/companies/${id}`, { body: { legalName: 'Newname Holding' } })).status,
    ).toBe(204);
    expect(await found('/search?q=newname')).toEqual([id]);
    expect(await found('/search?q=oldname')).toEqual([]);
    expect(await found('/companies?q=newname')).toEqual([id]);
  });

  it('a merged-away object is gone, the survivor found', async () => {
    const winner = await api.create('companies', { legalName: 'Mergewinner Corp' });
    const loser = await api.create('companies', { legalName: 'Mergeloser Corp' });
    const res = await api.call('POST', `/companies/${winner}/merge`, {
      body: { loser: api.href('companies', loser) },
    });
    expect(res.status).toBe(204);
    expect(await found(`/search?q=${q('merge corp')}`)).toEqual([winner]);
  });
});

describe('bad input: a clear 400 or an empty page, never a 500 or an FTS error', () => {
  const syntax = [
    '"',
    'acme"',
    '"acme',
    '*',
    'acme*',
    '"acme"',
    'NEAR(acme bv)',
    'NEAR',
    'legalName:acme',
    ':',
    '-acme',
    '-',
    '(acme',
    'acme)',
    '()',
    'acme OR globex',
    'acme AND NOT globex',
    '^acme',
    '{acme}',
    'acme + bv',
    "acme' --",
    '\\',
  ];
  const routes = [(text: string) => `/search?q=${q(text)}`, (text: string) => `/companies?q=${q(text)}`];

  it.each(syntax)('q=%s', async (text) => {
    for (const route of routes) {
      const { status, text: body } = await fetchJson(route(text));
      expect([200, 400]).toContain(status);
      expect(body).not.toMatch(/fts5|sqlite|syntax error|no such column|malformed MATCH/i);
    }
  });

  it.each<[string, string, string[]]>([
    ['operators are plain separators: acme* is acme', 'acme*', [DEMO.acme]],
    ['quotes only separate: "acme" is acme', '"acme"', [DEMO.acme]],
    ['an unbalanced quote only separates', '"acme', [DEMO.acme]],
    ['a leading minus is no negation', '-acme', [DEMO.acme]],
    ['parentheses only separate', '(acme)', [DEMO.acme]],
    ['OR is a plain word, ANDed', 'acme OR globex', []],
    ['NEAR is a plain word, ANDed', 'NEAR(acme bv)', []],
  ])('%s', async (_name, text, expected) => {
    expect(await found(`/companies?q=${q(text)}`)).toEqual(expected);
  });

  it.each<[string, string, number, number]>([
    ['q absent on global search: 400', '/search', 400, 0],
    ['empty q: empty page', '/search?q=', 200, 0],
    ['only separators: empty page', `/search?q=${q('"*:-()')}`, 200, 0],
    ['one term of 10,000 characters: empty page', `/search?q=${'a'.repeat(10_000)}`, 200, 0],
    ['10,000 characters of many terms: 400', `/search?q=${'ab+'.repeat(3_333)}a`, 400, 0],
    ['empty q on a list: empty page', '/companies?q=', 200, 0],
    ['10,000 characters on a list: empty page', `/companies?q=${'b'.repeat(10_000)}`, 200, 0],
  ])('%s', async (_name, route, status, rows) => {
    const res = await fetchJson(route);
    expect(res.status).toBe(status);
    if (status === 200) expect(rowsOf(res.body as unknown as Page)).toHaveLength(rows);
    else expect(res.body['status']).toBe(400);
  });
});

describe('search under record-level access control', () => {
  it.each<[string, () => string, () => string[]]>([
    [
      'system key: everything in scope',
      () => '',
      () => [DEMO.acme, DEMO.globex, DEMO.ann, DEMO.bob, DEMO.carla],
    ],
    ['viewer linked to Ann: her company and herself', () => viewerAnn.key, () => [DEMO.acme, DEMO.ann]],
    [
      'member linked to Carla: her company and herself',
      () => memberCarla.key,
      () => [DEMO.globex, DEMO.carla],
    ],
  ])('global search finds only what the caller can read: %s', async (_who, key, expected) => {
    const ids = await found('/search?q=example&size=1000', key() || undefined);
    expect(ids.filter((id) => Object.values(DEMO).includes(id as never))).toEqual(sorted(expected()));
  });

  it('with classes and on lists the same filter applies', async () => {
    expect(await found('/search?q=2026&classes=invoices', viewerAnn.key)).toEqual(
      sorted([DEMO.invoice1, DEMO.invoice2]),
    );
    expect(await found('/search?q=2026&classes=invoices', memberCarla.key)).toEqual(
      sorted([DEMO.invoice1, DEMO.invoice2, DEMO.invoice3]),
    );
    expect(await found('/companies?q=globex', viewerAnn.key)).toEqual([]);
  });

  it('paging walks only the visible matches and ends with next absent', async () => {
    const pages = await allPages('/search?q=example&size=1', { key: viewerAnn.key });
    const ids = pages.flatMap(rowsOf).map(idOf);
    expect(sorted(ids)).toEqual(sorted(await found('/search?q=example&size=1000', viewerAnn.key)));
    expect(pages.at(-1)?._links['next']).toBeUndefined();
  });
});

describe('POST /admin/{tenant}/rebuild', () => {
  async function admin(method: string, route: string, key = api.systemKey) {
    const res = await fetch(`${api.server.baseUrl}/admin/${api.tenant}${route}`, {
      method,
      headers: { 'X-API-Key': key },
    });
    const text = await res.text();
    return {
      status: res.status,
      location: res.headers.get('location'),
      body: (text ? JSON.parse(text) : {}) as Json,
    };
  }

  async function settled(): Promise<Json> {
    for (let i = 0; i < 200; i += 1) {
      const { body } = await admin('GET', '/rebuild');
      if (body['state'] !== 'running') return body;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('rebuild did not finish');
  }

  beforeAll(async () => {
    // Enough objects that a rebuild is observable while it runs.
    const batch = Array.from({ length: 600 }, (_, i) => i);
    for (let i = 0; i < batch.length; i += 20) {
      await Promise.all(batch.slice(i, i + 20).map((n) => createPerson('Bulk', `Rebuilt${n}`)));
    }
  }, 120_000);

  it('answers 202 with the running job, 409 while it runs (also for rebuildAccessControl), progress at GET /rebuild', async () => {
    const before = {
      global: await found('/search?q=acme'),
      viewer: await found('/search?q=example&size=1000', viewerAnn.key),
      bulk: rowsOf(await page('/search?q=bulk&size=1000')).length,
    };
    const started = await admin('POST', '/rebuild');
    expect(started.status).toBe(202);
    expect(started.location).toBe(`/admin/${api.tenant}/rebuild`);
    expect(started.body).toMatchObject({ state: 'running', kind: 'tenant', finishedAt: null, error: null });
    const [again, acl, progress] = await Promise.all([
      admin('POST', '/rebuild'),
      admin('POST', '/rebuildAccessControl'),
      admin('GET', '/rebuild'),
    ]);
    expect(progress.body).toMatchObject({
      state: 'running',
      kind: 'tenant',
      startedAt: started.body['startedAt'],
    });
    expect(['derivedData', 'accessControl']).toContain(progress.body['phase']);
    expect(again.status).toBe(409);
    expect(acl.status).toBe(409);

    expect(await settled()).toMatchObject({
      state: 'done',
      kind: 'tenant',
      phase: 'accessControl',
      error: null,
    });
    expect((await admin('GET', '/rebuild')).body['processed']).toBeGreaterThanOrEqual(before.bulk);
    expect(await found('/search?q=acme')).toEqual(before.global);
    expect(await found('/search?q=example&size=1000', viewerAnn.key)).toEqual(before.viewer);
    expect(rowsOf(await page('/search?q=bulk&size=1000'))).toHaveLength(before.bulk);
    expect(await found('/persons?q=rebuilt599')).toHaveLength(1);
  });

  it('repairs derived rows lost from the database file: class, value and full-text index rows, ACL rows and holdings', async () => {
    const before = {
      global: await found('/search?q=acme'),
      list: await found(`/persons?firstName=Bob`),
      viewer: await found('/search?q=example&size=1000', viewerAnn.key),
      invoices: await found('/invoices', viewerAnn.key),
    };
    expect(before.viewer.length).toBeGreaterThan(0);
    // What an operator restoring only the objects table would leave: every derived row gone.
    const db = new Database(path.join(api.server.dataDir, 'tenants', api.tenant, 'documents.sqlite'));
    try {
      db.exec(
        "INSERT INTO search (search) VALUES ('delete-all'); DELETE FROM cls; DELETE FROM ix; DELETE FROM acl; DELETE FROM holdings;",
      );
    } finally {
      db.close();
    }
    expect(await found('/search?q=acme')).toEqual([]);
    expect(await found(`/persons?firstName=Bob`)).toEqual([]);

    expect((await admin('POST', '/rebuild')).status).toBe(202);
    expect(await settled()).toMatchObject({ state: 'done', kind: 'tenant' });
    expect(await found('/search?q=acme')).toEqual(before.global);
    expect(await found(`/persons?firstName=Bob`)).toEqual(before.list);
    expect(await found('/search?q=example&size=1000', viewerAnn.key)).toEqual(before.viewer);
    expect(await found('/invoices', viewerAnn.key)).toEqual(before.invoices);
  });

  it('is refused to a non-admin (403)', async () => {
    expect((await admin('POST', '/rebuild', memberCarla.key)).status).toBe(403);
  });

  it.each<[string, string[], number]>([
    ['without --tenant: usage error', ['rebuild'], 2],
    ['for an unknown tenant: failure', ['rebuild', '--tenant', '00000000-0000-4000-8000-000000000000'], 1],
  ])('odp rebuild %s', async (_name, args, code) => {
    const result = await api.server.odpRaw([...args, '--json']);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
  });

  it('odp rebuild --tenant asks the running api, which starts it on its next request to the tenant', async () => {
    const last = await settled();
    const requested = await api.server.odp(['rebuild', '--tenant', api.tenant]);
    expect(requested).toMatchObject({ tenant: api.tenant, requested: true });
    await found('/search?q=acme');
    const status = await settled();
    expect(status).toMatchObject({ state: 'done', kind: 'tenant' });
    expect(String(status['startedAt']) > String(last['startedAt'])).toBe(true);
    // The request was consumed: further requests do not start another rebuild.
    await found('/search?q=acme');
    expect((await admin('GET', '/rebuild')).body['startedAt']).toBe(status['startedAt']);
  });
});
