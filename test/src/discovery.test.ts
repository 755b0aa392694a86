import { validateOpenApi } from './support/openapi.js';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';

/** Discovering the API from the API: probes, the class list and the OpenAPI document. */
describe('discovery', () => {
  let api: DataApi;
  beforeAll(async () => {
    api = await startDataServer();
  });
  afterAll(async () => {
    await api.server.stop();
  });

  const fetchRoot = (route: string, headers: Record<string, string> = {}) =>
    fetch(`${api.server.baseUrl}${route}`, { headers });

  describe('probes answer without a credential', () => {
    it('GET /health is 200 {status: ok}', async () => {
      const res = await fetchRoot('/health');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
    });

    it('GET /ready is 200 and names each engine it checked: those the configuration names', async () => {
      const engines = [
        'registry',
        'dataDir',
        ...(process.env['ODP_REDIS_URL'] ? ['redis'] : []),
        ...(process.env['ODP_STORE'] === 'mongodb' ? ['mongodb'] : []),
        ...(process.env['ODP_SEARCH'] === 'elasticsearch' ? ['elasticsearch'] : []),
      ];
      const res = await fetchRoot('/ready');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ready',
        checks: engines.map((name) => ({ name, ready: true })),
      });
    });

    it('a probe ignores a bad credential instead of refusing it', async () => {
      const res = await fetchRoot('/health', { 'X-API-Key': 'not-a-key' });
      expect(res.status).toBe(200);
    });
  });

  describe('GET /metadata/{tenant}/classes', () => {
    it('lists every class of the model with its list and metadata links, system classes left out', async () => {
      const res = await fetchRoot(`/metadata/${api.tenant}/classes`, { 'X-API-Key': api.systemKey });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { classes: Json[]; _links: Json };
      const names = body.classes.map((cls) => cls['name']);
      expect(names).toEqual([...names].sort((a, b) => String(a).localeCompare(String(b))));
      expect(names).toEqual(expect.arrayContaining(['companies', 'persons', 'invoices', 'documents']));
      expect(names.some((name) => String(name).startsWith('system') || name === 'secretValues')).toBe(false);
      const companies = body.classes.find((cls) => cls['name'] === 'companies');
      expect(companies).toMatchObject({
        qualifiedName: 'crm.company',
        abstract: false,
        creatable: true,
        _links: {
          list: { href: `/data/${api.tenant}/companies` },
          metadata: { href: `/metadata/${api.tenant}/dataObject?classes=companies` },
        },
      });
      expect(body._links).toEqual({ openapi: { href: `/metadata/${api.tenant}/openapi.json` } });
    });

    it('every listed list link answers 200', async () => {
      const res = await fetchRoot(`/metadata/${api.tenant}/classes`, { 'X-API-Key': api.systemKey });
      const body = (await res.json()) as { classes: { _links: { list: { href: string } } }[] };
      for (const cls of body.classes) {
        const res = await fetchRoot(cls._links.list.href, { 'X-API-Key': api.systemKey });
        expect([cls._links.list.href, res.status]).toEqual([cls._links.list.href, 200]);
      }
    });

    it('needs a credential (401 without one)', async () => {
      const res = await fetchRoot(`/metadata/${api.tenant}/classes`);
      expect(res.status).toBe(401);
    });
  });

  describe('GET /metadata/{tenant}/openapi.json', () => {
    let document: Json;
    beforeAll(async () => {
      const res = await fetchRoot(`/metadata/${api.tenant}/openapi.json`, { 'X-API-Key': api.systemKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/vnd.oai.openapi+json');
      document = (await res.json()) as Json;
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      expect(document['openapi']).toBe('3.1.0');
      const result = await validateOpenApi(document);
      expect(result).toEqual({ valid: true });
    });

    it('the standard validator does refuse a broken document (the check can fail)', async () => {
      const broken = { ...document, paths: { '/x': { get: { responses: { '200': { content: 5 } } } } } };
      expect((await validateOpenApi(broken)).valid).toBe(false);
    });

    it("describes each class's routes, fields, filters and errors", () => {
      const paths = document['paths'] as Record<string, Record<string, Json>>;
      const list = paths['/data/{tenant}/companies']?.['get'];
      const parameters = (list?.['parameters'] as { name: string }[]).map((p) => p.name);
      expect(parameters).toEqual(
        expect.arrayContaining([
          'tenant',
          'q',
          'legalName',
          'legalName_from',
          'legalName_startswith',
          'page',
          'size',
          'sort',
        ]),
      );
      expect(Object.keys(paths['/data/{tenant}/companies/{id}'] ?? {}).sort()).toEqual([
        'delete',
        'get',
        'patch',
      ]);
      expect(paths['/data/{tenant}/companies']?.['post']).toBeDefined();
      expect(paths['/data/{tenant}/companies/{id}/merge']?.['post']).toBeDefined();
      expect(paths['/data/{tenant}/search']?.['get']).toBeDefined();
      const responses = list?.['responses'] as Record<string, unknown>;
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
      const schemas = (document['components'] as { schemas: Record<string, Json> }).schemas;
      const company = schemas['companies']?.['properties'] as Record<string, Json>;
      expect(company['legalName']).toMatchObject({ type: 'string' });
      expect(Object.keys(paths).some((p) => p.includes('secretValues') || p.includes('/system'))).toBe(false);
    });

    it('every list it describes answers 200', async () => {
      const paths = document['paths'] as Record<string, Record<string, Json>>;
      const plainLists = Object.keys(paths).filter((p) => {
        const operationId = String(paths[p]?.['get']?.['operationId'] ?? '');
        return /^\/data\/\{tenant\}\/[A-Za-z]+$/.test(p) && operationId.endsWith('List');
      });
      expect(plainLists.length).toBeGreaterThan(3);
      for (const route of plainLists) {
        const res = await fetchRoot(route.replace('{tenant}', api.tenant), { 'X-API-Key': api.systemKey });
        expect([route, res.status]).toEqual([route, 200]);
      }
    });

    it('every related list it describes for a company answers 200 for a company', async () => {
      const paths = document['paths'] as Record<string, Record<string, Json>>;
      const related = Object.keys(paths).filter(
        (p) =>
          /^\/data\/\{tenant\}\/companies\/\{id\}\/[A-Za-z]+$/.test(p) &&
          String(paths[p]?.['get']?.['operationId'] ?? '').endsWith('List'),
      );
      expect(related.length).toBeGreaterThan(0);
      for (const route of related) {
        const url = route.replace('{tenant}', api.tenant).replace('{id}', DEMO.acme);
        const res = await fetchRoot(url, { 'X-API-Key': api.systemKey });
        expect([route, res.status]).toEqual([route, 200]);
      }
    });
  });
});
