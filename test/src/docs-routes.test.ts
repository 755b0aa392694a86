/**
 * The docs and the api agree on the routes: every route a doc names (docs/routes.md, "How the docs
 * name a route") is answered by a route of the real api, every route the api registers is named by
 * the platform's docs, and every link a response carries leads to a route.
 *
 * "Answered by a route" means: not the api's no-route answer (`urn:odp:problem:no-route`, which
 * differs from the not-found of a route that found no class or object), not a 401 (authentication
 * runs before routing, so a refused credential would hide a missing route) and no 5xx. Requests are
 * sent with the credential their branch takes and are safe for the demo fixture: writes carry a body
 * the route refuses (`[]`, not an object) or name an object that does not exist.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPlatform, registeredRoutes } from '@odp/api';
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
  readonly type: string | null;
  readonly location: string | null;
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

  /** Sends a request with the credential its branch takes; reads the problem type of a problem answer. */
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
    } else if (!OPEN_BRANCHES.has(branch)) {
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
    return { status: res.status, type, location: res.headers.get('location') };
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
        token: 'no-such-token',
        uploadToken: 'no-such-token',
        downloadToken: 'no-such-token',
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
