/**
 * The docs and the api agree on the routes: every route a doc names (docs/routes.md, "How the docs
 * name a route") is answered by a route of the real api, every route the api registers is named by
 * the platform's docs, and every link a response carries leads to a route.
 *
 * "Answered by a route" means: not the api's no-route answer (`urn:odp:problem:no-route`, which
 * differs from the not-found of a route that found no class or object), not a 401 (authentication
 * runs before routing, so a refused credential would hide a missing route) and no 5xx. Requests are
 * sent with the credential their branch takes and keep the demo fixture: writes carry a body the
 * route refuses (`[]`, not an object) or name an object that does not exist, a tenant deletion a
 * wrong confirmation; the admin jobs that only re-derive (reload, rebuild, recalculate, sync, load
 * default data) run. A link in a response must moreover answer a GET without a 4xx (the upload URL,
 * a POST target, excepted).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registeredRoutes } from '@odp/api';
import { openPlatform } from '@odp/platform';
import type { RegisteredRoute } from '@odp/api';
import { loadConfig } from '@odp/config';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { platformDocFiles, placeholderOf, routeShape, routesOfDoc } from './support/doc-routes.js';
import type { DocRoute } from './support/doc-routes.js';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { REPO_ROOT } from './support/server.js';

const NO_ROUTE = 'urn:odp:problem:no-route';
/** An id no object of the demo tenant has: writes and deletes naming it change nothing. */
const NO_OBJECT = '00000000-0000-4000-8000-00000000dead';
/** Branches answered without a credential header (apps/api/src/authentication.ts). */
const OPEN_BRANCHES = new Set(['health', 'ready', 'binaries', 'admin-ui']);
const WEBHOOK = /^\/admin\/[^/]+\/modelWebhook$/;

interface Answer {
  readonly status: number;
  /** The problem `type` of a problem answer, else null. */
  readonly type: string | null;
}

describe('docs and routes agree', () => {
  let api: DataApi;
  let idp: Idp;
  let personToken: string;
  let webhookSecret: string;
  let registered: RegisteredRoute[];

  beforeAll(async () => {
    idp = await startIdp();
    api = await startDataServer({ env: idp.env });
    personToken = await idp.token({ sub: 'docs-routes-person' });
    webhookSecret = String((await api.server.odp(['model', 'webhook', '--tenant', api.tenant]))['secret']);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-docs-routes-'));
    try {
      const platform = await openPlatform(
        loadConfig({ ODP_DATA_DIR: dataDir }),
        path.join(REPO_ROOT, 'examples/models'),
      );
      registered = registeredRoutes(platform);
      await platform.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  afterAll(async () => {
    await api?.server.stop();
    await idp?.stop();
  });

  /**
   * Sends a request with the credential its branch takes (none when the address carries its own, a
   * stream `token`); reads the problem type of a problem answer.
   */
  async function send(method: string, target: string): Promise<Answer> {
    const url = new URL(target, api.server.baseUrl);
    const [, branch = '', second] = url.pathname.split('/');
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
      body = '[]';
      headers['content-type'] = 'application/json';
    }
    if (method === 'POST' && WEBHOOK.test(url.pathname)) {
      body = '{}';
      headers['x-hub-signature-256'] =
        `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`;
    } else if (branch === 'invitations' || (branch === 'tenants' && !second)) {
      headers['authorization'] = `Bearer ${personToken}`;
    } else if (!OPEN_BRANCHES.has(branch) && !url.searchParams.has('token')) {
      headers['x-api-key'] = api.systemKey;
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const contentType = res.headers.get('content-type') ?? '';
    let type: string | null = null;
    if (contentType.startsWith('application/problem+json')) {
      type = String(((await res.json()) as { type?: unknown }).type);
    } else {
      await res.body?.cancel(); // an event stream never ends on its own
    }
    return { status: res.status, type };
  }

  /** Why an answer does not come from a route (no route, a refused credential, a server error), or null. */
  function notRouted(answer: Answer): string | null {
    return answer.type === NO_ROUTE || answer.status === 401 || answer.status >= 500
      ? `${answer.status} ${answer.type ?? ''}`
      : null;
  }

  describe('every route a doc names exists', () => {
    /** The demo tenant's value for a placeholder, by its name and the route it is in. */
    function valueOf(name: string, route: DocRoute, names: readonly string[]): string {
      const write = route.method !== 'GET';
      const related = names.includes('relatedTypeName') || names.includes('referenceTypeName');
      const report = route.path.includes('/reports/');
      const object = write ? NO_OBJECT : report ? DEMO.invoice1 : DEMO.acme;
      const values: Record<string, string> = {
        tenant: api.tenant,
        tenantId: api.tenant,
        t: api.tenant,
        a: api.tenant,
        b: api.tenant,
        typeName: related ? 'employees' : report ? 'invoices' : 'companies',
        typePluralName: 'companies',
        plural: 'companies',
        class: 'companies',
        relatedTypeName: 'companies',
        referenceTypeName: 'companies',
        relatedId: object,
        referenceId: object,
        id: object,
        objectId: object,
        c: object,
        fieldName: 'legalName',
        reportName: 'invoice',
        scriptName: 'noSuchScript',
        fileId: NO_OBJECT,
        jobId: NO_OBJECT,
        keyId: NO_OBJECT,
        profileId: NO_OBJECT,
        token: 'no-such-token',
        uploadToken: 'no-such-token',
        downloadToken: 'no-such-token',
        file: 'swagger-ui.css',
      };
      const value = values[name];
      if (value === undefined) {
        throw new Error(
          `${route.file}:${route.line}: no demo value for the placeholder "${name}" of ${route.path}`,
        );
      }
      return value;
    }

    function concrete(route: DocRoute): string {
      const segments = route.path.split('/');
      const names = segments.map(placeholderOf).filter((name): name is string => name !== null);
      const target = segments
        .map((segment) => {
          const name = placeholderOf(segment);
          return name === null ? segment : encodeURIComponent(valueOf(name, route, names));
        })
        .join('/');
      // A tenant deletion refused for a wrong confirmation proves the route and deletes nothing.
      return route.method === 'DELETE' && /^\/admin\/[^/]+$/.test(target)
        ? `${target}?name=not-the-tenant-name&deleteTenant=false`
        : target;
    }

    const named = [...platformDocFiles(), 'docs/interface.md'].flatMap(routesOfDoc);
    const notServed = named.filter(
      (route) => route.file === 'docs/routes.md' && route.section === 'Not served',
    );
    const notServedShapes = new Set(notServed.map((route) => routeShape(route.method, route.path)));
    const docRoutes = named.filter((route) => !notServedShapes.has(routeShape(route.method, route.path)));

    it('the docs name routes (the reader finds them), each by its whole path', () => {
      expect(docRoutes.length).toBeGreaterThan(100);
      expect(new Set(docRoutes.map((route) => route.file)).size).toBeGreaterThan(10);
      const elided = named.filter((route) =>
        route.path.split('/').some((segment) => segment.includes('...')),
      );
      expect(elided.map((route) => `${route.file}:${route.line} ${route.method} ${route.path}`)).toEqual([]);
    });

    it('the routes docs/routes.md lists as not served answer no route', async () => {
      expect(notServed.length).toBeGreaterThan(0);
      for (const route of notServed) {
        const answer = await send(route.method, concrete(route));
        expect({ route: route.path, type: answer.type }).toEqual({ route: route.path, type: NO_ROUTE });
      }
    });

    it('each is answered by a route of the api', async () => {
      const requests = new Map<string, DocRoute>();
      for (const route of docRoutes) requests.set(`${route.method} ${concrete(route)}`, route);
      const unrouted: string[] = [];
      for (const [request, route] of requests) {
        const [method = '', target = ''] = request.split(' ');
        const why = notRouted(await send(method, target));
        if (why !== null) unrouted.push(`${route.file}:${route.line} ${route.method} ${route.path}: ${why}`);
      }
      expect(unrouted).toEqual([]);
    }, 120_000);
  });

  describe('every link in a response leads to a route', () => {
    /** Every `href` member at any depth of a JSON body. */
    function hrefsOf(value: unknown): string[] {
      if (Array.isArray(value)) return value.flatMap(hrefsOf);
      if (typeof value !== 'object' || value === null) return [];
      return Object.entries(value).flatMap(([key, member]) =>
        key === 'href' && typeof member === 'string' ? [member] : hrefsOf(member),
      );
    }

    /** The addresses a response links to: body hrefs, a string body that is a URL, `Location`, `Link`. */
    async function linksOf(method: string, route: string, body?: unknown): Promise<string[]> {
      const res = await fetch(`${api.server.baseUrl}${route}`, {
        method,
        headers: {
          'x-api-key': api.systemKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
      });
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
      const links = [
        res.headers.get('location') ?? '',
        ...(res.headers.get('link') ?? '').matchAll(/<([^>]+)>/g),
      ]
        .map((link) => (typeof link === 'string' ? link : (link[1] ?? '')))
        .filter((link) => link !== '');
      const json = (res.headers.get('content-type') ?? '').includes('json')
        ? ((await res.json()) as unknown)
        : null;
      if (typeof json === 'string' && /^(https?:\/)?\//.test(json)) links.push(json);
      return [...links, ...hrefsOf(json)];
    }

    /** A CSV import of one company (it leaves an import status behind to read). */
    async function importStatusRoute(): Promise<string> {
      const uploadUrl = (await (await api.call('GET', '/upload')).json()) as string;
      const form = new FormData();
      form.append('file', new Blob(['legalName\nLinked Import Co\n']), 'companies.csv');
      const uploaded = (await (await fetch(uploadUrl, { method: 'POST', body: form })).json()) as unknown[];
      const res = await api.call('POST', '/import', { body: { file: uploaded[0], typeName: 'companies' } });
      expect(res.status).toBe(201);
      return res.headers.get('location') ?? '';
    }

    it('in objects, lists, related lists, search, metadata, capabilities, audit, admin and system answers', async () => {
      const t = `/${api.tenant}`;
      const gets = [
        `/data${t}/companies/${DEMO.acme}`,
        `/data${t}/invoices/${DEMO.invoice1}`,
        `/data${t}/companies?size=1`,
        `/data${t}/companies?size=1&page=1&sort=legalName,desc`,
        `/data${t}/companies/${DEMO.acme}/employees?size=1`,
        `/data${t}/companies?q=acme&size=1`,
        `/data${t}/search?q=acme&classes=companies,persons&size=1`,
        `/data${t}/invoices/distinct?distinct=client`,
        `/data${t}/invoices/aggregations?sum=amount&avg=amount&count=amount`,
        `/data${t}/invoices/values/invoiceNumber`,
        `/data${t}/companies/capabilities`,
        `/data${t}/companies/${DEMO.acme}/capabilities`,
        `/data${t}/companies/${DEMO.acme}/employees/capabilities`,
        `/data${t}/eventStream/token`,
        `/data${t}/upload`,
        `/data${t}/excel/companies`,
        `/data${t}/invoices/${DEMO.invoice1}/reports/invoice`,
        `/metadata${t}/classes`,
        `/metadata${t}/dataObject?classes=companies`,
        `/metadata${t}/relatedDataObject?classes=companies`,
        `/metadata${t}/form?classes=companies`,
        `/metadata${t}/migrationDefinition`,
        `/audit${t}/companies/${DEMO.acme}/access`,
        `/audit${t}/access-control`,
        `/admin${t}/modelStatus`,
        `/admin${t}/rebuild`,
        `/admin${t}/jobs`,
        `/admin${t}/recalculate`,
        `/system${t}/serviceCallLogs`,
        `/system${t}/serviceCallLogs/aggregations`,
        `/tenants${t}`,
        await importStatusRoute(),
      ];
      const links = new Map<string, string>();
      for (const route of gets) for (const link of await linksOf('GET', route)) links.set(link, route);
      for (const link of await linksOf('POST', `/admin${t}/companies/recalculate`))
        links.set(link, 'recalculate');
      expect(links.size).toBeGreaterThan(50);
      // The upload URL is where the bytes are POSTed; every other link is read with GET and must
      // answer it (a 4xx would be a link to a refusal: the export of a list it cannot export, say).
      const uploadUrl = `/data${t}/upload`;
      const broken: string[] = [];
      for (const [link, from] of links) {
        const url = new URL(link, api.server.baseUrl);
        if (url.origin !== new URL(api.server.baseUrl).origin) {
          broken.push(`${link} (in ${from}): not an address of the api`);
          continue;
        }
        const answer = await send('GET', `${url.pathname}${url.search}`);
        const why =
          notRouted(answer) ??
          (from !== uploadUrl && answer.status >= 400 ? `${answer.status} ${answer.type}` : null);
        if (why !== null) broken.push(`${link} (in ${from}): ${why}`);
      }
      expect(broken).toEqual([]);
    }, 120_000);

    it('in the OpenAPI document: every path with each of its operations', async () => {
      const res = await fetch(`${api.server.baseUrl}/metadata/${api.tenant}/openapi.json`, {
        headers: { 'x-api-key': api.systemKey },
      });
      const document = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.entries(document.paths).flatMap(([template, item]) =>
        Object.keys(item)
          .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
          .map((key) => ({ method: key.toUpperCase(), template })),
      );
      expect(operations.length).toBeGreaterThan(20);
      const broken: string[] = [];
      for (const { method, template } of operations) {
        // A parameter is an object id of no object: reads answer 404 not-found, writes change nothing.
        const target = template.replaceAll(/\{[^}]+\}/g, (name) =>
          name === '{tenant}' ? api.tenant : NO_OBJECT,
        );
        const why = notRouted(await send(method, target));
        if (why !== null) broken.push(`${method} ${template}: ${why}`);
      }
      expect(broken).toEqual([]);
    }, 120_000);
  });

  describe('docs/data-api.md states the sort, distinct, aggregation and capabilities syntax', () => {
    const get = async (route: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await api.call('GET', route);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const names = async (route: string) => (await api.rows(route)).map((row) => String(row['legalName']));

    it('sort=name, name,asc and name,desc (the direction in any case) order a list', async () => {
      const ascending = await names('/companies?sort=legalName');
      expect(ascending.length).toBeGreaterThan(1);
      expect(await names('/companies?sort=legalName,asc')).toEqual(ascending);
      expect(await names('/companies?sort=legalName,DESC')).toEqual([...ascending].reverse());
    });

    it.each([',desc', 'legalName,sideways', 'legalName,desc,x', '-legalName', '+legalName'])(
      'an unparseable sort (%s) is a 400 naming sort',
      async (sort) => {
        const { status, body } = await get(`/companies?sort=${encodeURIComponent(sort)}`);
        expect({ status, errors: body['errors'] }).toEqual({
          status: 400,
          errors: [{ field: 'sort', message: 'expected name, name,asc or name,desc' }],
        });
      },
    );

    it('distinct orders by count with sort=count[,asc|,desc]; another sort is a 400 naming sort', async () => {
      const counts = async (sort: string) =>
        (
          (await get(`/invoices/distinct?distinct=status&sort=${sort}`)).body['values'] as { count: number }[]
        ).map((bucket) => bucket.count);
      const ascending = await counts('count');
      expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
      expect(await counts('count,ASC')).toEqual(ascending);
      expect(await counts('count,desc')).toEqual([...ascending].sort((a, b) => b - a));
      for (const sort of ['legalName', 'count,sideways', '-count']) {
        const { status, body } = await get(`/invoices/distinct?distinct=status&sort=${sort}`);
        expect({
          sort,
          status,
          field: (body['errors'] as { field: string }[] | undefined)?.[0]?.field,
        }).toEqual({
          sort,
          status: 400,
          field: 'sort',
        });
      }
    });

    it('aggregations take sum, avg and count, each a list of fields; only total when none qualifies', async () => {
      const amounts = (await api.rows('/invoices?size=1000'))
        .map((row) => row['amount'])
        .filter((amount): amount is number => typeof amount === 'number');
      expect(amounts.length).toBeGreaterThan(1);
      const sum = amounts.reduce((a, b) => a + b, 0);
      const { body } = await get('/invoices/aggregations?sum=amount&avg=amount&count=amount,invoiceNumber');
      expect(body['total']).toBe((await api.rows('/invoices?size=1000')).length);
      expect(body['sum']).toEqual({ amount: expect.closeTo(sum, 6) });
      expect(body['avg']).toEqual({ amount: expect.closeTo(sum / amounts.length, 6) });
      expect(body['count']).toEqual({ amount: amounts.length });
      expect((await get('/invoices/aggregations?sum=invoiceNumber')).body).toEqual({ total: body['total'] });
      expect((await get('/invoices/aggregations')).body).toEqual({ total: body['total'] });
      expect(
        (await get('/invoices/aggregations?invoiceNumber=none&sum=amount&avg=amount&count=amount')).body,
      ).toEqual({
        total: 0,
        sum: { amount: 0 },
        avg: {},
        count: { amount: 0 },
      });
    });

    it('the three capabilities addresses answer the documented shapes', async () => {
      expect((await get(`/companies/${DEMO.acme}/capabilities`)).body).toEqual({
        mayModify: true,
        mayDelete: true,
      });
      expect((await get('/companies/capabilities')).body).toEqual({
        mayCreate: true,
        allowedClasses: expect.arrayContaining(['companies']),
      });
      expect((await get(`/companies/${DEMO.acme}/employees/capabilities`)).body).toEqual({
        mayCreate: true,
        allowedClasses: expect.arrayContaining(['persons']),
      });
      expect((await get(`/companies/${NO_OBJECT}/capabilities`)).status).toBe(404);
    });
  });

  it('every route the api registers is named by the docs', () => {
    const documented = new Set(
      platformDocFiles()
        .flatMap(routesOfDoc)
        .filter((route) => route.section !== 'Not served')
        .map((route) => routeShape(route.method, route.path)),
    );
    const undocumented = registered
      .map((route) => routeShape(route.method, route.path))
      .filter((shape) => !documented.has(shape));
    expect(registered.length).toBeGreaterThan(50);
    expect(undocumented).toEqual([]);
  });
});
