import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { entryArguments, freePort, REPO_ROOT, runOdpProcess, startServer } from './support/server.js';
import type { TestServer } from './support/server.js';

/** Runs `pnpm start`'s entry point to its exit with `env` (the refusals to start: it never serves). */
function startEmbedded(env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, entryArguments('apps/api', 'embedded'), {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
  });
}

/** Tenants routes, the first start, the `odp` command and the error format, through the real server. */
describe('tenants and the embedded start', () => {
  let idp: Idp;
  let server: TestServer;
  let demo: string;
  let systemKey: string;

  beforeAll(async () => {
    idp = await startIdp();
    server = await startServer({ env: idp.env });
    demo = server.tenantId ?? '';
    systemKey = server.systemKey ?? '';
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.stop();
  });

  const call = (route: string, init: RequestInit & { key?: string; token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set('X-API-Key', init.key);
    if (init.token !== undefined) headers.set('Authorization', `Bearer ${init.token}`);
    if (typeof init.body === 'string') headers.set('Content-Type', 'application/json');
    return fetch(`${server.baseUrl}${route}`, { ...init, headers });
  };

  it('creates the demo tenant and a system key on the first start', async () => {
    expect(demo).toMatch(/^[0-9a-f-]{36}$/);
    expect(systemKey).toMatch(/^odp_[A-Za-z0-9_-]{43}$/);
    expect(server.output()).toContain(`Demo tenant: ${demo}`);
    const res = await call(`/tenants/${demo}`, { key: systemKey });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: demo,
      name: 'Demo CRM',
      modelSource: path.join(REPO_ROOT, 'examples/models/crm'),
      generalSearchClasses: expect.any(Array),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it("loads the demo model's default data on the first start", async () => {
    expect(server.output()).toContain("Loaded the demo model's default data: 11 objects.");
    const acme = await call(`/data/${demo}/companies/3c9d2b71-0f4e-4a8b-8c2d-0000000c0001`, {
      key: systemKey,
    });
    expect(acme.status).toBe(200);
    expect(await acme.json()).toMatchObject({ _class: 'companies', legalName: 'Acme BV' });
  });

  it('reuses the data on a later start and prints the tenant id only', async () => {
    const again = await startServer({ env: idp.env, dataDir: server.dataDir });
    try {
      expect(again.tenantId).toBe(demo);
      expect(again.systemKey).toBeNull();
      expect(again.output()).not.toContain(systemKey);
      expect(again.output()).toContain(`a new one: bin/odp key create --tenant ${demo}`);
      const res = await fetch(`${again.baseUrl}/tenants/${demo}`, { headers: { 'X-API-Key': systemKey } });
      expect(res.status).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
    expect(again.output()).toContain('"message":"shutting down","signal":"SIGTERM"');
  });

  it('lets a signed-in person create a tenant, become its admin and list it', async () => {
    const token = await idp.token({ sub: 'founder', email: 'founder@example.com' });
    const created = await call('/tenants', {
      method: 'POST',
      token,
      body: JSON.stringify({ name: '  Acme  ' }),
    });
    expect(created.status).toBe(201);
    const tenant = (await created.json()) as { id: string };
    expect(tenant).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme',
      modelSource: null,
      generalSearchClasses: [],
      createdAt: expect.any(String),
    });
    expect(created.headers.get('location')).toBe(`/tenants/${tenant.id}`);

    const list = await call('/tenants', { token });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual([tenant]);
    expect((await call(`/tenants/${tenant.id}`, { token })).status).toBe(200);
    // The creator is admin: /admin passes the role check and reaches the (unknown) route.
    expect((await call(`/admin/${tenant.id}/nothing-here`, { token })).status).toBe(404);
    // Another person sees none of it.
    const stranger = await idp.token({ sub: 'stranger' });
    expect(await (await call('/tenants', { token: stranger })).json()).toEqual([]);
    expect((await call(`/tenants/${tenant.id}`, { token: stranger })).status).toBe(403);
  });

  it.each([
    [{}, [{ field: 'name', message: 'is required, 1 to 200 characters' }]],
    [{ name: 'x'.repeat(201) }, [{ field: 'name', message: 'is required, 1 to 200 characters' }]],
    [{ name: 'A', model: '../../etc' }, [{ field: 'model', message: 'must name a bundled example model' }]],
    [
      { name: 'A', model: 'no-such-model' },
      [{ field: 'model', message: 'must name a bundled example model' }],
    ],
  ])('refuses POST /tenants %j with 400 naming the field', async (body, errors) => {
    const token = await idp.token({ sub: 'founder' });
    const res = await call('/tenants', { method: 'POST', token, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toEqual({
      type: 'urn:odp:problem:validation',
      title: 'Invalid request',
      status: 400,
      detail: 'The tenant cannot be created.',
      errors,
    });
  });

  it('lists only tenants where the person has an active profile', async () => {
    const t = await server.odp(['tenant', 'create', '--name', 'Listed']);
    const tenantId = String(t['id']);
    const p = await server.odp([
      'profile',
      'create',
      '--tenant',
      tenantId,
      '--sub',
      'lister',
      '--email',
      'l@x',
      '--role',
      'viewer',
    ]);
    const token = await idp.token({ sub: 'lister' });
    const names = async () =>
      ((await (await call('/tenants', { token })).json()) as { name: string }[]).map((x) => x.name);
    expect(await names()).toEqual(['Listed']);
    await server.odp(['profile', 'suspend', '--tenant', tenantId, '--id', String(p['id'])]);
    expect(await names()).toEqual([]);
    await server.odp(['profile', 'activate', '--tenant', tenantId, '--id', String(p['id'])]);
    expect(await names()).toEqual(['Listed']);
  });

  it('redirects the root to the admin page, without a credential', async () => {
    const res = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/admin-ui/');
  });

  it.each([
    ['with a valid key', { key: 'system' }],
    ['without a credential', {}],
  ])('answers a path under no branch of the platform with the no-route problem, %s', async (_name, how) => {
    for (const route of ['/nothing-here', '/favicon.ico', '/Data/x/companies']) {
      const res = await call(route, 'key' in how ? { key: systemKey } : {});
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ type: 'urn:odp:problem:no-route', status: 404 });
    }
  });

  it('answers unknown routes with a 404 problem', async () => {
    const res = await call(`/tenants/${demo}/no/such/route`, { key: systemKey });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toEqual({
      type: 'urn:odp:problem:no-route',
      title: 'No such route',
      status: 404,
      detail: 'No such route.',
    });
  });

  it('refuses a 20 MB body with 413 and malformed JSON with 400', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(20 * 1024 * 1024) });
    const tooLarge = await call(`/data/${demo}/companies`, { method: 'POST', key: systemKey, body: big });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ type: 'urn:odp:problem:payload-too-large', status: 413 });
    const broken = await call(`/data/${demo}/companies`, {
      method: 'POST',
      key: systemKey,
      body: '{"name":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ status: 400, detail: 'The request body is not valid JSON.' });
  });

  it('answers OPTIONS preflights without a credential', async () => {
    const res = await call(`/data/${demo}/companies`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('X-API-Key');
  });
});

describe('the odp command', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.stop());

  it('creates, lists and deletes tenants; the keys of a deleted tenant stop working', async () => {
    const created = await server.odp(['tenant', 'create', '--name', 'Cli Co', '--model', 'examples/models']);
    // `examples/models` holds a model folder, not a model: the tenant is created, its model is named failed.
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Cli Co',
      model: expect.objectContaining({
        state: 'FAILED',
        errors: expect.arrayContaining([expect.anything()]),
      }),
    });
    const id = String(created['id']);
    const list = (await server.odp(['tenant', 'list'])) as { tenants: { id: string; name: string }[] };
    expect(list.tenants.map((t) => t.name)).toEqual(['Demo CRM', 'Cli Co']);
    const key = await server.odp(['key', 'create', '--tenant', id]);
    expect(key).toEqual({ id: expect.any(String), key: expect.stringMatching(/^odp_/) });
    const get = () =>
      fetch(`${server.baseUrl}/tenants/${id}`, { headers: { 'X-API-Key': String(key['key']) } });
    expect((await get()).status).toBe(200);
    expect(await server.odp(['tenant', 'delete', '--id', id])).toEqual({ id, deleted: true });
    expect((await get()).status).toBe(401);
  });

  it("prints the model's errors and warnings when it creates a tenant with a model", async () => {
    const result = await server.odpRaw([
      'tenant',
      'create',
      '--name',
      'Warned Co',
      '--model',
      'examples/models/crm',
    ]);
    expect(result.code).toBe(0);
    const [created, summary, ...issues] = result.stdout.trim().split('\n');
    expect(created).toMatch(/^Created tenant [0-9a-f-]{36} \(Warned Co\)$/);
    expect(summary).toMatch(/: LOADED \(0 error\(s\), 1 warning\(s\), 1 upgradable file\(s\)\)$/);
    expect(issues).toEqual([
      'INFO migration/legacyCrm.json: Migration is a beta feature, outside the compatibility guarantee',
    ]);
    const id = /tenant ([0-9a-f-]{36})/.exec(created ?? '')?.[1] ?? '';
    expect(await server.odp(['tenant', 'delete', '--id', id])).toEqual({ id, deleted: true });
  });

  it('creates user-bound keys, revokes keys, and suspends profiles', async () => {
    const tenant = String(server.tenantId);
    const profile = await server.odp([
      'profile',
      'create',
      '--tenant',
      tenant,
      '--sub',
      'bob',
      '--email',
      'bob@example.com',
      '--role',
      'member',
      '--roles',
      'sales,support',
      '--object',
      `/data/${tenant}/persons/0b8e4a4e-1c7e-4f43-9a57-4f1d1c1e7a10`,
      '--active-until',
      '2099-12-31',
    ]);
    expect(profile).toEqual({ id: expect.any(String) });
    const key = await server.odp(['key', 'create', '--tenant', tenant, '--profile', String(profile['id'])]);
    const get = () =>
      fetch(`${server.baseUrl}/tenants/${tenant}`, { headers: { 'X-API-Key': String(key['key']) } });
    expect((await get()).status).toBe(200);
    expect(
      await server.odp(['profile', 'suspend', '--tenant', tenant, '--id', String(profile['id'])]),
    ).toEqual({
      id: profile['id'],
      active: false,
    });
    expect((await get()).status).toBe(401);
    await server.odp(['profile', 'activate', '--tenant', tenant, '--id', String(profile['id'])]);
    expect((await get()).status).toBe(200);
    const revoked = await server.odp(['key', 'revoke', '--tenant', tenant, '--id', String(key['id'])]);
    expect(revoked).toEqual({ id: key['id'], revokedAt: expect.any(String) });
    expect((await get()).status).toBe(401);
  });

  it('lists the profiles and the keys of a tenant, never a key value or hash', async () => {
    const created = await server.odp(['tenant', 'create', '--name', 'Listing Co']);
    const tenant = String(created['id']);
    const ann = await server.odp([
      'profile',
      'create',
      '--tenant',
      tenant,
      '--sub',
      'ann',
      '--email',
      'ann@example.com',
      '--role',
      'admin',
    ]);
    const cid = await server.odp([
      'profile',
      'create',
      '--tenant',
      tenant,
      '--sub',
      'cid',
      '--email',
      'cid@example.com',
      '--role',
      'viewer',
      '--active-until',
      '2001-01-01',
    ]);
    const profiles = await server.odp(['profile', 'list', '--tenant', tenant]);
    expect(profiles).toEqual({
      tenant,
      profiles: [
        expect.objectContaining({ id: ann['id'], email: 'ann@example.com', role: 'admin', activeNow: true }),
        expect.objectContaining({
          id: cid['id'],
          role: 'viewer',
          activeUntil: '2001-01-01',
          activeNow: false,
        }),
      ],
    });

    const system = await server.odp(['key', 'create', '--tenant', tenant]);
    const bound = await server.odp(['key', 'create', '--tenant', tenant, '--profile', String(ann['id'])]);
    const lapsed = await server.odp([
      'key',
      'create',
      '--tenant',
      tenant,
      '--expires',
      '2001-01-01T00:00:00Z',
    ]);
    await server.odp(['key', 'revoke', '--tenant', tenant, '--id', String(system['id'])]);
    const raw = await server.odpRaw(['key', 'list', '--tenant', tenant, '--json']);
    expect(raw.code).toBe(0);
    for (const secret of [system['key'], bound['key'], lapsed['key']]) {
      expect(raw.stdout).not.toContain(String(secret));
      expect(raw.stdout).not.toContain(createHash('sha256').update(String(secret)).digest('hex'));
    }
    const keys = JSON.parse(raw.stdout) as { keys: Record<string, unknown>[] };
    expect(keys.keys.map(({ id, state, profileId }) => ({ id, state, profileId }))).toEqual([
      { id: system['id'], state: 'revoked', profileId: null },
      { id: bound['id'], state: 'valid', profileId: ann['id'] },
      { id: lapsed['id'], state: 'expired', profileId: null },
    ]);
    const text = await server.odpRaw(['key', 'list', '--tenant', tenant]);
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
    await server.odp(['tenant', 'delete', '--id', tenant]);
  });

  it.each([
    [['profile', 'list', '--tenant', 'nope'], 1, /No tenant nope/],
    [['key', 'list'], 2, /--tenant is required/],
    [['tenant', 'create'], 2, /--name is required/],
    [
      ['tenant', 'create', '--name', 'x', '--model', 'no/such/dir'],
      2,
      /--model: no\/such\/dir is not a directory/,
    ],
    [['tenant', 'delete', '--id', '00000000-0000-4000-8000-000000000000'], 1, /No tenant/],
    [
      ['profile', 'create', '--tenant', 'x', '--sub', 's', '--email', 'e', '--role', 'owner'],
      1,
      /No tenant x/,
    ],
    [['key', 'create', '--tenant', 'nope'], 1, /No such tenant/],
    [['key', 'create', '--tenant', 'nope', '--expires', 'soon'], 2, /--expires must be an ISO-8601/],
    [['key', 'revoke', '--tenant', 'nope', '--id', 'x'], 1, /No such API key/],
    [['tenant', 'list', '--bogus'], 2, /Unknown option '--bogus'/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
  ])('odp %j fails with exit %i and a message on stderr', async (args, code, message) => {
    const result = await server.odpRaw([...args, '--json']);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('takes --json on every command, help included', async () => {
    const help = (await server.odp(['help'])) as { commands: { command: string; usage: string }[] };
    expect(help.commands.map((c) => c.command)).toEqual(
      expect.arrayContaining(['data load-defaults', 'key list']),
    );
    for (const { command } of help.commands) {
      const result = await server.odpRaw([...command.split(' '), '--json']);
      // Either one JSON object, or a usage error about a missing option: never "Unknown option '--json'".
      if (result.code === 0) expect(() => JSON.parse(result.stdout) as unknown).not.toThrow();
      else expect(result).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/is required/) });
    }
  });

  it('data load-defaults: the api loads the missing default objects on its next request, keeping the others', async () => {
    const tenant = String(server.tenantId);
    const headers = { 'X-API-Key': String(server.systemKey) };
    const lines = (await (
      await fetch(`${server.baseUrl}/data/${tenant}/invoiceLines`, { headers })
    ).json()) as {
      _embedded: { invoiceLines: { _links: { _self: { href: string } } }[] };
    };
    const line = lines._embedded.invoiceLines[0]?._links._self.href ?? '';
    expect(line).not.toBe('');
    expect((await fetch(`${server.baseUrl}${line}`, { method: 'DELETE', headers })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}${line}`, { headers })).status).toBe(404);

    expect(await server.odp(['data', 'load-defaults', '--tenant', tenant])).toEqual({
      tenant,
      requested: true,
    });
    expect((await fetch(`${server.baseUrl}${line}`, { headers })).status).toBe(200);
    // The log line travels through the server's stdout pipe; give it a moment.
    for (let i = 0; i < 50 && !server.output().includes('"default data loaded"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(server.output()).toMatch(/"message":"default data loaded".*"created":1,"skipped":\d+/);
    expect((await server.odpRaw(['data', 'load-defaults', '--tenant', 'nope'])).code).toBe(1);
  });

  it('runs as an executable: one JSON object on stdout, or a message on stderr and a non-zero exit', async () => {
    const listed = await runOdpProcess(server.env, ['tenant', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({
      tenants: [expect.objectContaining({ id: server.tenantId })],
    });
    const failed = await runOdpProcess(server.env, ['tenant', 'delete', '--id', 'nope', '--json']);
    expect(failed).toEqual({ code: 1, stdout: '', stderr: 'odp: No tenant nope.\n' });
  });

  it('starts the api alone (scale-out) against the same registry', async () => {
    const port = await freePort();
    const api = spawn(process.execPath, entryArguments('apps/api', 'main'), {
      cwd: REPO_ROOT,
      env: { ...process.env, ...server.env, PORT: String(port), ODP_BASE_URL: `http://127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        api.stdout.on(
          'data',
          (chunk: Buffer) => chunk.toString().includes('ODP api is running') && resolve(),
        );
        api.once('exit', (code) => reject(new Error(`api exited with ${code}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/tenants/${server.tenantId}`, {
        headers: { 'X-API-Key': String(server.systemKey) },
      });
      expect(res.status).toBe(200);
    } finally {
      if (api.exitCode === null) {
        const exited = new Promise((resolve) => api.once('exit', resolve));
        api.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    }
  });

  it('stops with one line when the port is already in use', () => {
    const port = new URL(server.baseUrl).port;
    const result = startEmbedded({ ...process.env, ...server.env, PORT: port });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`odp: configuration error: PORT: ${port} is already in use\n`);
  });

  it('stops on bad configuration with one line naming the variable', () => {
    const result = startEmbedded({ ...process.env, PORT: 'eighty', ODP_DATA_DIR: server.dataDir });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'odp: configuration error: PORT: must be an integer from 1 to 65535 (got "eighty")\n',
    );
  });

  it('stops with one line on an ODP_ variable the platform does not implement (a misspelt name)', () => {
    const result = startEmbedded({ ...process.env, ODP_MAX_UPLOAD_BYTE: '5', ODP_DATA_DIR: server.dataDir });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'odp: configuration error: ODP_MAX_UPLOAD_BYTE: is not a configuration variable (docs/configuration.md lists them)\n',
    );
  });

  it('stops with one line when the configured search engine does not answer', async () => {
    const closed = await freePort();
    const result = startEmbedded({
      ...process.env,
      ...server.env,
      PORT: String(await freePort()),
      ODP_SEARCH: 'elasticsearch',
      ODP_ELASTICSEARCH_URL: `http://odp:hunter2@127.0.0.1:${closed}`,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^odp: configuration error: ODP_ELASTICSEARCH_URL: Elasticsearch at http://127\\.0\\.0\\.1:${closed} does not answer: [^\\n]+\\n$`,
      ),
    );
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stdout).toBe('');
  });
});
