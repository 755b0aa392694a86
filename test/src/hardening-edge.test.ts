/**
 * The HTTP edge under malformed and hostile requests (docs/errors.md, docs/configuration.md
 * "Limits", docs/data-api.md "Limits"): upper-case paths, bad %-escapes and body encodings, client
 * aborts, deeply nested JSON. Every client mistake is a 4xx problem and none is logged as a 500.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { createAccount, createProfile } from './support/accounts.js';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { REPO_ROOT } from './support/server.js';
import type { TestServer } from './support/server.js';

const PROBLEM = 'application/problem+json';

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

/** A raw HTTP request: the path and body bytes go out exactly as given. */
function send(
  baseUrl: string,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: route,
        headers: { connection: 'close', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Log lines of the server at error level or with a 5xx status (none may come from a client mistake). */
function serverFailures(server: TestServer): string[] {
  return server
    .output()
    .split('\n')
    .filter(
      (line) => line.includes('"level":"error"') || /"status":5\d\d/.test(line) || line.includes('    at '),
    );
}

/** Info lines are written once per event-loop turn; let the server write them. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** `[[[...]]]` nested `depth` levels. */
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('the HTTP edge under malformed and hostile requests', () => {
  let idp: Idp;
  let api: DataApi;
  let t: string;
  const keys: Record<'system' | 'member' | 'viewer', string> = { system: '', member: '', viewer: '' };
  const tokens: Record<'viewerToken' | 'strangerToken', string> = { viewerToken: '', strangerToken: '' };

  const raw = (method: string, route: string, headers: Record<string, string> = {}, body?: Buffer | string) =>
    send(api.server.baseUrl, method, route, { 'x-api-key': api.systemKey, ...headers }, body);
  const postJson = (route: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    raw('POST', route, { 'content-type': 'application/json', ...headers }, body);
  const expectProblem = (reply: Reply, status: number) => {
    expect({ status: reply.status, type: reply.type }).toEqual({
      status,
      type: expect.stringContaining(PROBLEM) as unknown,
    });
    return JSON.parse(reply.body) as { detail: string; errors?: { field: string; message: string }[] };
  };

  beforeAll(async () => {
    idp = await startIdp();
    api = await startDataServer({ env: idp.env });
    t = api.tenant;
    keys.system = api.systemKey;
    keys.member = (await createAccount(api, { name: 'edge-member', role: 'member' })).key;
    keys.viewer = (await createAccount(api, { name: 'edge-viewer', role: 'viewer' })).key;
    await createProfile(api, { sub: 'edge-viewer-person', role: 'viewer' });
    tokens.viewerToken = await idp.token({ sub: 'edge-viewer-person' });
    tokens.strangerToken = await idp.token({ sub: 'edge-stranger' });
  });

  afterAll(async () => {
    await api?.server.stop();
    await idp?.stop();
  });

  describe('paths match case-sensitively everywhere: authentication and routing agree', () => {
    type Credential = keyof typeof keys | keyof typeof tokens;
    const CREDENTIALS: readonly Credential[] = ['system', 'member', 'viewer', 'viewerToken', 'strangerToken'];
    const ROLE: Record<Credential, 'system' | 'member' | 'viewer' | null> = {
      system: 'system',
      member: 'member',
      viewer: 'viewer',
      viewerToken: 'viewer',
      strangerToken: null,
    };
    /** Every branch, as the routes spell it (`{t}` is the tenant, `{acme}` an object). */
    const ROUTES: readonly [string, string][] = [
      ['GET', '/data/{t}/companies'],
      ['POST', '/data/{t}/companies'],
      ['GET', '/data/{t}/companies/{acme}'],
      ['PATCH', '/data/{t}/companies/{acme}'],
      ['DELETE', '/data/{t}/companies/{acme}'],
      ['GET', '/data/{t}/companies/distinct?distinct=companyType'],
      ['GET', '/data/{t}/companies/values/legalName'],
      ['GET', '/data/{t}/companies/{acme}/employees'],
      ['GET', '/data/{t}/search?q=acme'],
      ['GET', '/data/{t}/companies/capabilities'],
      ['GET', '/data/{t}/eventStream'],
      ['GET', '/metadata/{t}/migrationDefinition/schema'],
      ['GET', '/metadata/{t}/dataObject?classes=companies'],
      ['GET', '/audit/{t}/access-control'],
      ['GET', '/admin/{t}/modelStatus'],
      ['POST', '/admin/{t}/reloadModel'],
      ['POST', '/admin/{t}/modelWebhook'],
      ['GET', '/system/{t}/secretValues'],
      ['GET', '/scripts/{t}/companies/{acme}'],
      ['GET', '/assets/{t}/logo.png'],
      ['GET', '/tenants/{t}'],
      ['GET', '/tenants'],
    ];
    const TENANT_BRANCHES = new Set([
      'data',
      'metadata',
      'audit',
      'admin',
      'system',
      'scripts',
      'assets',
      'tenants',
    ]);
    const ADMIN_BRANCHES = new Set(['audit', 'admin', 'system']);

    /** Mixed-case spellings: the branch upper-case, capitalised, and the segment after the tenant upper-case. */
    const variants = (route: string): { route: string; branchChanged: boolean }[] => {
      const [, branch = '', , third] = route.split('?')[0]?.split('/') ?? [];
      const out = [
        { route: route.replace(`/${branch}`, `/${branch.toUpperCase()}`), branchChanged: true },
        {
          route: route.replace(`/${branch}`, `/${branch[0]?.toUpperCase()}${branch.slice(1)}`),
          branchChanged: true,
        },
      ];
      if (third !== undefined) {
        out.push({ route: route.replace(`/${third}`, `/${third.toUpperCase()}`), branchChanged: false });
      }
      return out;
    };

    /**
     * What a mixed-case path must answer: it is no route. A path whose branch is not spelled
     * exactly is under none of the platform's branches: no route (404) whatever the credential
     * (docs/errors.md). With the branch exact, authentication and the role check run as for the tenant
     * (403 for a person without profile, a viewer's write, a non-admin on an admin branch), and
     * then no route matches (404).
     */
    const expected = (credential: Credential, method: string, route: string, branchChanged: boolean) => {
      if (branchChanged) return 404;
      const branch = route.split('/')[1] ?? '';
      const role = ROLE[credential];
      if (role === null) return TENANT_BRANCHES.has(branch) ? 403 : 404;
      if (role !== 'system' && ADMIN_BRANCHES.has(branch)) return 403;
      if (role === 'viewer' && method !== 'GET') return 403;
      return 404;
    };

    const cases = ROUTES.flatMap(([method, route]) =>
      variants(route).flatMap(({ route: variant, branchChanged }) =>
        CREDENTIALS.map((credential) => ({
          method,
          route: variant,
          credential,
          status: expected(credential, method, variant, branchChanged),
        })),
      ),
    );

    it.each(cases)(
      '$method $route with $credential: $status',
      async ({ method, route, credential, status }) => {
        const resolved = route.replaceAll('{t}', t).replaceAll('{acme}', DEMO.acme);
        const headers: Record<string, string> =
          credential in keys
            ? { 'x-api-key': keys[credential as keyof typeof keys] }
            : { authorization: `Bearer ${tokens[credential as keyof typeof tokens]}` };
        const body = method === 'GET' || method === 'DELETE' ? undefined : '{"legalName":"Case Co"}';
        const reply = await send(
          api.server.baseUrl,
          method,
          resolved,
          { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
          body,
        );
        expect(reply.status).toBe(status);
        expect(reply.type).toContain(PROBLEM);
      },
    );

    it('the reported cases: a person without profile and a signed-in viewer get nothing through upper case', async () => {
      const stranger = { authorization: `Bearer ${tokens.strangerToken}` };
      const schema = `/metadata/${t}/migrationDefinition/schema`;
      expect((await send(api.server.baseUrl, 'GET', schema, stranger)).status).toBe(403);
      expect(
        (await send(api.server.baseUrl, 'GET', schema.replace('/metadata', '/METADATA'), stranger)).status,
      ).toBe(404);
      const viewer = { authorization: `Bearer ${tokens.viewerToken}`, 'content-type': 'application/json' };
      const create = (branch: string) =>
        send(api.server.baseUrl, 'POST', `/${branch}/${t}/companies`, viewer, '{"legalName":"Viewer Co"}');
      expect((await create('data')).status).toBe(403);
      expect((await create('DATA')).status).toBe(404);
      expect(await api.ids('/companies?legalName=Viewer Co')).toEqual([]);
      expect(await api.ids('/companies?legalName=Case Co')).toEqual([]);
    });
  });

  describe('malformed requests are 4xx problems', () => {
    it.each([
      `/data/{t}/companies/%ZZ`,
      `/data/{t}/%E0%A4%A/x`,
      `/data/{t}/companies/%`,
      `/audit/{t}/companies/%C0%AF/access`,
    ])('a bad %%-escape in a path parameter (%s) is 400', async (route) => {
      const problem = expectProblem(await raw('GET', route.replace('{t}', t)), 400);
      expect(problem.detail).toBe('A path segment is not valid percent-encoding.');
    });

    const body = Buffer.from(JSON.stringify({ legalName: 'Encoded Co' }));
    it.each(['gzip', 'deflate', 'br'])(
      'a body whose bytes are not %s as Content-Encoding says is 400',
      async (encoding) => {
        const problem = expectProblem(
          await postJson(`/data/${t}/companies`, body, { 'content-encoding': encoding }),
          400,
        );
        expect(problem.detail).toBe('The request body does not match its Content-Encoding.');
      },
    );

    it('a truncated gzip body is 400', async () => {
      const truncated = gzipSync(body).subarray(0, 15);
      expectProblem(await postJson(`/data/${t}/companies`, truncated, { 'content-encoding': 'gzip' }), 400);
    });

    it('an unsupported Content-Encoding is 400', async () => {
      const problem = expectProblem(
        await postJson(`/data/${t}/companies`, body, { 'content-encoding': 'compress' }),
        400,
      );
      expect(problem.detail).toContain('unsupported Content-Encoding');
    });

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const)('a body really encoded with %s is read', async (encoding, encode) => {
      const reply = await postJson(
        `/data/${t}/companies`,
        encode(Buffer.from(JSON.stringify({ legalName: `Encoded ${encoding}` }))),
        { 'content-encoding': encoding },
      );
      expect(reply.status).toBe(201);
    });

    it('bad JSON, a wrong content type, invalid UTF-8 and an unknown charset are 400; a body over 10 MB is 413', async () => {
      expect(expectProblem(await postJson(`/data/${t}/companies`, '{"legalName":'), 400).detail).toBe(
        'The request body is not valid JSON.',
      );
      expectProblem(
        await raw('POST', `/data/${t}/companies`, { 'content-type': 'text/plain' }, '{"legalName":"Plain"}'),
        400,
      );
      const invalidUtf8 = Buffer.concat([
        Buffer.from('{"legalName":"bad '),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      expect(expectProblem(await postJson(`/data/${t}/companies`, invalidUtf8), 400).detail).toBe(
        'The request body is not valid UTF-8.',
      );
      expectProblem(
        await raw(
          'POST',
          `/data/${t}/companies`,
          { 'content-type': 'application/json; charset=latin1' },
          '{}',
        ),
        400,
      );
      const huge = JSON.stringify({ legalName: 'x'.repeat(11 * 1024 * 1024) });
      expectProblem(await postJson(`/data/${t}/companies`, huge), 413);
      expect(await api.ids('/companies?legalName_startswith=bad')).toEqual([]);
    });

    it('malformed query strings, tenant segments and content types are never a 500', async () => {
      const statuses = {
        query: (await raw('GET', `/data/${t}/companies?legalName=%ZZ&sort=%&page=%FF&size=%`)).status,
        tenant: (await raw('GET', '/data/%ZZ/companies')).status,
        badMediaType: (
          await raw('POST', `/data/${t}/companies`, { 'content-type': 'application/json; charset' }, '{}')
        ).status,
        noMediaType: (await raw('POST', `/data/${t}/companies`, { 'content-type': ';;' }, '{}')).status,
        emptyJson: (await raw('POST', `/data/${t}/companies`, { 'content-type': 'application/json' }, ''))
          .status,
        arrayBody: (await postJson(`/data/${t}/companies`, '[{"legalName":"x"}]')).status,
        nullBody: (await postJson(`/data/${t}/companies`, 'null')).status,
      };
      expect(statuses).toEqual({
        query: 200,
        tenant: 401,
        badMediaType: 400,
        noMediaType: 400,
        emptyJson: 400,
        arrayBody: 400,
        nullBody: 400,
      });
    });

    it('a client that aborts its request is not logged as a failure', async () => {
      const before = serverFailures(api.server).length;
      await new Promise<void>((resolve, reject) => {
        const url = new URL(api.server.baseUrl);
        const req = request({
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: `/data/${t}/companies`,
          headers: {
            'x-api-key': api.systemKey,
            'content-type': 'application/json',
            'content-length': '100000',
          },
        });
        req.on('error', () => resolve());
        req.write('{"legalName":"abort', () =>
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 100),
        );
        req.on('response', () => reject(new Error('the server answered a request it could not have read')));
      });
      await settle();
      expect(serverFailures(api.server).slice(before)).toEqual([]);
    });
  });

  describe('JSON nesting is bounded at the edge (64 levels)', () => {
    it('a create with a value nested 5000 levels deep is 400 naming the field', async () => {
      const reply = await postJson(
        `/data/${t}/companies`,
        `{"legalName":"Deep Co","profile":${nested(5000)}}`,
      );
      const problem = expectProblem(reply, 400);
      expect(problem.errors).toEqual([
        { field: 'profile', message: 'nests arrays and objects deeper than 64 levels' },
      ]);
      expect(await api.ids('/companies?legalName=Deep Co')).toEqual([]);
    });

    it('a value nested 1000 levels is refused, so values and distinct keep working for everyone', async () => {
      const problem = expectProblem(
        await postJson(`/data/${t}/companies`, `{"legalName":"Deep Co","profile":{"a":${nested(999)}}}`),
        400,
      );
      expect(problem.errors?.[0]?.field).toBe('profile');
      const values = await api.get<{ value: unknown }[]>('/companies/values/legalName');
      expect(values.map((row) => row.value)).toContain('Acme BV');
      expect((await api.call('GET', '/companies/values/legalName', { key: keys.member })).status).toBe(200);
      expect((await api.call('GET', '/companies/values/profile')).status).toBe(200);
      expect((await api.call('GET', '/companies/distinct?distinct=companyType')).status).toBe(200);
    });

    it('a member cannot PATCH an array nested 4000 deep; later patches and merges of the object work', async () => {
      const patched = await send(
        api.server.baseUrl,
        'PATCH',
        `/data/${t}/companies/${DEMO.globex}`,
        { 'x-api-key': keys.member, 'content-type': 'application/json' },
        `{"tags":["a"],"profile":${nested(4000)}}`,
      );
      expect(expectProblem(patched, 400).errors).toEqual([
        { field: 'profile', message: 'nests arrays and objects deeper than 64 levels' },
      ]);
      expect(
        (await api.call('PATCH', `/companies/${DEMO.globex}`, { body: { employeeCount: 12 } })).status,
      ).toBe(204);
      const other = await api.create('companies', { legalName: 'Merged Away' });
      const merged = await api.call('POST', `/companies/${DEMO.globex}/merge`, {
        body: { loser: api.href('companies', other), patch: { profile: JSON.parse(nested(60)) } },
      });
      expect(merged.status).toBe(204);
      const merge = await api.call('POST', `/companies/${DEMO.globex}/merge`, {
        body: { loser: api.href('companies', DEMO.acme), patch: { profile: JSON.parse(nested(70)) } },
      });
      expect(
        expectProblem(
          { status: merge.status, type: merge.headers.get('content-type') ?? '', body: await merge.text() },
          400,
        ).errors?.[0]?.field,
      ).toBe('patch');
    });

    it('a value at the limit (63 levels inside the body) is stored and read back whole', async () => {
      const deepest = JSON.parse(nested(63)) as unknown;
      const id = await api.create('companies', { legalName: 'Deepest Co', profile: deepest });
      const object = await api.get(`/companies/${id}`);
      expect(object['profile']).toEqual(deepest);
      expect(
        (await api.call('PATCH', `/companies/${id}`, { body: { profile: deepest, employeeCount: 3 } }))
          .status,
      ).toBe(204);
      const values = await api.get<{ value: unknown }[]>('/companies/values/profile');
      expect(values.map((row) => row.value)).toContainEqual(deepest);
    });
  });

  it('logged no 500, error line or stack trace for any of these client mistakes', async () => {
    await settle();
    expect(serverFailures(api.server)).toEqual([]);
  });
});

describe('bounded values and pages, and server timeouts', () => {
  const LIMITS = {
    ODP_MAX_VALUE_BYTES: '200000',
    ODP_MAX_PAGE_BYTES: '500000',
    ODP_HTTP_HEADERS_TIMEOUT_MS: '500',
    ODP_HTTP_REQUEST_TIMEOUT_MS: '1000',
    ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
  };
  let api: DataApi;

  beforeAll(async () => {
    api = await startDataServer({ env: LIMITS });
  });
  afterAll(async () => {
    await api?.server.stop();
  });

  /** A JSON value of about `bytes` bytes. */
  const heavy = (bytes: number) => ({ blob: 'x'.repeat(bytes) });

  it('a value larger than ODP_MAX_VALUE_BYTES is 400 naming the field, on create and patch', async () => {
    for (const [method, route] of [
      ['POST', '/companies'],
      ['PATCH', `/companies/${DEMO.acme}`],
    ] as const) {
      const res = await api.call(method, route, { body: { legalName: 'Heavy Co', profile: heavy(300_000) } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain(PROBLEM);
      expect(((await res.json()) as { errors: unknown }).errors).toEqual([
        { field: 'profile', message: 'is larger than 200000 bytes' },
      ]);
    }
    expect(await api.ids('/companies?legalName=Heavy Co')).toEqual([]);
  });

  it('a list page is shortened to ODP_MAX_PAGE_BYTES and its next link starts right after its last object', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.push(await api.create('companies', { legalName: `Weighty ${i}`, profile: heavy(150_000) }));
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let route: string | undefined = '/companies?legalName_startswith=Weighty&size=20';
    while (route !== undefined) {
      const res = await api.call('GET', route);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(Buffer.byteLength(text)).toBeLessThan(500_000 + 10_000);
      const page = JSON.parse(text) as {
        _embedded: { companies: { _links: { _self: { href: string } } }[] };
        _links: { next?: { href: string } };
      };
      sizes.push(page._embedded.companies.length);
      seen.push(...page._embedded.companies.map((object) => object._links._self.href.slice(-36)));
      const next = page._links.next?.href;
      route = next === undefined ? undefined : next.slice(api.path('').length);
    }
    expect(seen).toEqual(created);
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('pages by position keep their filters, size and sort in every link', async () => {
    const page = await api.get<{
      _embedded: { companies: unknown[] };
      _links: Record<string, { href: string }>;
    }>('/companies?legalName_startswith=Weighty&size=2&_offset=5&sort=legalName');
    expect(page._embedded.companies).toHaveLength(2);
    const path = api.path('/companies');
    expect(page._links['self']?.href).toBe(
      `${path}?legalName_startswith=Weighty&sort=legalName&_offset=5&size=2`,
    );
    expect(page._links['prev']?.href).toBe(
      `${path}?legalName_startswith=Weighty&sort=legalName&_offset=3&size=2`,
    );
    expect(page._links['first']?.href).toBe(
      `${path}?legalName_startswith=Weighty&sort=legalName&page=0&size=2`,
    );
    expect(page._links['next']).toBeUndefined();
  });

  /** Opens a raw connection, writes `text`, and resolves how long the server kept it open. */
  const heldOpenMs = (text: string, giveUpMs: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const url = new URL(api.server.baseUrl);
      const started = Date.now();
      const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(Number.POSITIVE_INFINITY);
      }, giveUpMs);
      socket.on('data', () => undefined);
      socket.on('error', reject);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Date.now() - started);
      });
    });

  it('closes a connection whose headers never complete (ODP_HTTP_HEADERS_TIMEOUT_MS)', async () => {
    const held = await heldOpenMs(
      `GET /data/${api.tenant}/companies HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `,
      5000,
    );
    expect(held).toBeLessThan(3000);
  });

  it('closes a connection whose body never completes (ODP_HTTP_REQUEST_TIMEOUT_MS)', async () => {
    const held = await heldOpenMs(
      `POST /data/${api.tenant}/companies HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${api.systemKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"legalName":',
      5000,
    );
    expect(held).toBeLessThan(3500);
  });

  it('closes an idle keep-alive connection (ODP_HTTP_KEEP_ALIVE_TIMEOUT_MS)', async () => {
    const held = await heldOpenMs(
      `GET /data/${api.tenant}/companies/${DEMO.acme} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${api.systemKey}\r\n\r\n`,
      5000,
    );
    expect(held).toBeLessThan(3500);
  });

  it('keeps an event stream open past the request and keep-alive timeouts', async () => {
    const held = await heldOpenMs(
      `GET /data/${api.tenant}/eventStream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${api.systemKey}\r\n\r\n`,
      2500,
    );
    expect(held).toBe(Number.POSITIVE_INFINITY);
  });

  it('logged no 500, error line or stack trace', async () => {
    await settle();
    expect(serverFailures(api.server)).toEqual([]);
  });
});

describe('documentation', () => {
  /** The `synchronous` pragma a store module sets. */
  const synchronousOf = (file: string) =>
    /pragma\('synchronous = (\w+)'\)/.exec(readFileSync(path.join(REPO_ROOT, file), 'utf8'))?.[1];

  it('docs/configuration.md states the synchronous mode each SQLite store runs with', () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs/configuration.md'), 'utf8').replace(/\s+/g, ' ');
    const tenant = synchronousOf('packages/store-sqlite/src/tenant/database.ts');
    // The registry opens its file through openSharedDatabase, with the job queue and the replication buffer.
    expect(
      readFileSync(path.join(REPO_ROOT, 'packages/store-sqlite/src/platform/registry.ts'), 'utf8'),
    ).toContain('openSharedDatabase(');
    const platform = synchronousOf('packages/store-sqlite/src/migrations.ts');
    expect([tenant, platform]).toEqual(['NORMAL', 'FULL']);
    expect(docs).toContain(
      `The tenant stores (\`tenants/<tenant id>/\`) run with \`synchronous = ${tenant}\``,
    );
    expect(docs).toContain(
      `The platform registry (\`platform.sqlite\`) runs with \`synchronous = ${platform}\``,
    );
    expect(docs).not.toMatch(/SQLite files run in WAL mode with `synchronous = FULL`/);
  });
});
