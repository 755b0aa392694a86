/**
 * Keyset paging through the real server (docs/data-api.md, "Paging"): the `next` link of a data
 * list, a related list and a system list carries an opaque `after` cursor naming the page's last
 * row; following it never repeats or skips a row, even while rows are created and deleted; explicit
 * page numbers keep their meaning; a damaged or foreign cursor is a 400 problem naming `after`.
 */
import { DEMO, idOf, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';

const PROBLEM = 'application/problem+json';

interface Page {
  readonly _embedded: Record<string, Json[]>;
  readonly _links: Record<string, { href: string } | undefined>;
}

let api: DataApi;

beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

/** A route of the tenant's data branch from a link's href. */
const routeOf = (href: string): string => href.slice(api.path('').length);
const query = (href: string | undefined): Record<string, string> =>
  Object.fromEntries(new URL(href ?? '', 'http://x').searchParams);
/**
 * `cursor` with a character in the middle of its signature changed: every bit there is significant
 * (the last character of a signature carries unused bits, so changing it is another test).
 */
const damaged = (cursor: string): string => {
  const at = cursor.indexOf('.') + 20;
  return cursor.slice(0, at) + (cursor[at] === 'A' ? 'B' : 'A') + cursor.slice(at + 1);
};

/** GET of an absolute path (`/data/...` or `/system/...`) with the system key. */
async function getPage(path: string): Promise<Page> {
  const res = await fetch(`${api.server.baseUrl}${path}`, { headers: { 'X-API-Key': api.systemKey } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

/** The ids of every page from `path` on, following `next`; `between` runs after the first page. */
async function follow(path: string, between?: () => Promise<void>): Promise<string[][]> {
  const pages: string[][] = [];
  let at: string | undefined = path;
  while (at !== undefined) {
    const page: Page = await getPage(at);
    pages.push((Object.values(page._embedded)[0] ?? []).map(idOf));
    const next = page._links['next']?.href;
    if (next !== undefined) expect(query(next)['after']).toMatch(/^[\w-]+\.[\w-]+$/);
    at = next;
    if (pages.length === 1 && between) await between();
    if (pages.length > 100) throw new Error('paging did not end');
  }
  return pages;
}

describe('Keyset paging of lists', () => {
  const names = ['Kilo', 'Alpha', 'Echo', 'alpha', 'Golf', 'Bravo', 'Delta', 'Hotel', 'Charlie', 'India'];
  const created = new Map<string, string>();

  beforeAll(async () => {
    for (const [index, name] of names.entries()) {
      created.set(name, await api.create('companies', { legalName: `KS ${name}`, employeeCount: index % 3 }));
    }
  });

  it.each([
    ['ascending by a text field (ties by creation)', 'sort=legalName'],
    ['descending by a number with ties', 'sort=employeeCount,desc'],
    ['in creation order (no sort)', ''],
  ])('walks %s exactly as the page numbers do', async (_name, sort) => {
    const base = `legalName_startswith=KS&size=3${sort ? `&${sort}` : ''}`;
    const pages = await follow(api.path(`/companies?${base}`));
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 1]);
    const numbered: string[][] = [];
    for (let page = 0; page < 4; page++) numbered.push(await api.ids(`/companies?${base}&page=${page}`));
    expect(pages).toEqual(numbered);
    expect(new Set(pages.flat()).size).toBe(names.length);
  });

  it('keeps the filters, sort, size and the page number in next, and the cursor in self', async () => {
    const first = await api.get<Page>('/companies?legalName_startswith=KS&sort=legalName&size=3');
    const next = first._links['next']?.href ?? '';
    expect(next.startsWith(api.path('/companies?'))).toBe(true);
    const { after, ...rest } = query(next);
    expect(rest).toEqual({ legalName_startswith: 'KS', sort: 'legalName', page: '1', size: '3' });
    const second = await api.get<Page>(routeOf(next));
    expect(query(second._links['self']?.href)).toEqual({ ...rest, after });
    expect(query(second._links['prev']?.href)).toEqual({ ...rest, page: '0' });
    expect(query(second._links['first']?.href)).toEqual({ ...rest, page: '0' });
    expect(second._links['excel']?.href).toBe(
      api.path('/excel/companies?legalName_startswith=KS&sort=legalName'),
    );
  });

  it('neither repeats nor skips a row when rows are created and deleted between pages', async () => {
    const base = api.path('/companies?legalName_startswith=KS&sort=legalName&size=2');
    const before = (await follow(base)).flat();
    const added: string[] = [];
    const pages = await follow(base, async () => {
      // The first page ends at "KS alpha" (after "KS Alpha", its tie created earlier).
      added.push(await api.create('companies', { legalName: 'KS Aardvark' })); // before the boundary
      added.push(await api.create('companies', { legalName: 'KS ALPHA' })); // a tie created later: after it
      added.push(await api.create('companies', { legalName: 'KS Zulu' })); // after it
      const gone = await api.call('DELETE', `/companies/${created.get('alpha')}`); // the boundary row
      expect(gone.status).toBe(200);
    });
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages[0]).toEqual(before.slice(0, 2));
    expect(pages[0]?.[1]).toBe(created.get('alpha'));
    expect(seen.slice(2)).toEqual([added[1], ...before.slice(2), added[2]]);
    for (const id of added) {
      const res = await api.call('DELETE', `/companies/${id}`);
      expect(res.status).toBe(200);
    }
    created.delete('alpha');
  });

  it('pages a related list by cursor, keeping its path shape', async () => {
    const pages = await follow(api.path(`/companies/${DEMO.acme}/invoices?size=1&sort=amount`));
    expect(pages.flat()).toEqual(await api.ids(`/companies/${DEMO.acme}/invoices?sort=amount`));
    expect(pages.length).toBeGreaterThan(1);
  });

  it('pages a system list by cursor under /system', async () => {
    for (const name of ['ksOne', 'ksTwo', 'ksThree']) {
      const res = await fetch(`${api.server.baseUrl}/system/${api.tenant}/systemSettings`, {
        method: 'POST',
        headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, value: 'v' }),
      });
      expect(res.status).toBe(201);
    }
    const path = `/system/${api.tenant}/systemSettings?name_startswith=ks&sort=name&size=2`;
    const first = await getPage(path);
    expect(first._links['next']?.href.startsWith(`/system/${api.tenant}/systemSettings?`)).toBe(true);
    const pages = await follow(path);
    const names = pages.flat().length;
    expect(names).toBe(3);
    expect(pages.map((page) => page.length)).toEqual([2, 1]);
  });

  describe('refuses a cursor that is not one of this list with a 400 problem', () => {
    let cursor = '';
    beforeAll(async () => {
      const first = await api.get<Page>('/companies?legalName_startswith=KS&sort=legalName&size=2');
      cursor = query(first._links['next']?.href)['after'] ?? '';
      expect(cursor).not.toBe('');
    });

    it.each<[string, () => string]>([
      ['damaged', () => `/companies?legalName_startswith=KS&sort=legalName&after=${damaged(cursor)}`],
      [
        'forged (payload altered)',
        () => `/companies?legalName_startswith=KS&sort=legalName&after=e30${cursor}`,
      ],
      ['not a cursor at all', () => '/companies?sort=legalName&after=page-2'],
      ['of another sort', () => `/companies?legalName_startswith=KS&sort=legalName,desc&after=${cursor}`],
      ['of another filter', () => `/companies?legalName_startswith=KT&sort=legalName&after=${cursor}`],
      ['of another class', () => `/persons?legalName_startswith=KS&sort=legalName&after=${cursor}`],
      ['of a related list', () => `/companies/${DEMO.acme}/invoices?sort=legalName&after=${cursor}`],
    ])('%s', async (_name, route) => {
      const res = await api.call('GET', route());
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain(PROBLEM);
      const body = (await res.json()) as { errors: unknown };
      expect(body.errors).toEqual([{ field: 'after', message: 'not a cursor of this query' }]);
    });
  });
});
