import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { AUDIENCE, startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { startServer, storedRegistry } from './support/server.js';
import type { TestServer } from './support/server.js';

/**
 * Authentication and the coarse role (interface spec: Authentication, Roles, Credential validity,
 * the 401/403 rows of Errors) through the real server and a local identity provider.
 */

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** A raw HTTP request, so header values can be exactly what an attacker sends (empty, huge, non-ASCII bytes). */
function send(
  baseUrl: string,
  method: string,
  route: string,
  headers: Record<string, string | string[]> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(route, baseUrl);
    const req = request(url, { method, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' || method === 'PATCH' ? '{}' : undefined);
  });
}

const UNAUTHENTICATED = {
  type: 'urn:odp:problem:unauthenticated',
  title: 'Unauthenticated',
  status: 401,
  detail: 'A valid credential for this route is required.',
};

describe('authentication and roles', () => {
  let idp: Idp;
  let server: TestServer;
  let tenantA: string;
  let tenantB: string;
  const keys: Record<string, string> = {};
  /** Every credential value used, to prove none reaches a log line. */
  const used = new Set<string>();

  const key = (name: string): string => {
    const value = keys[name];
    if (value === undefined) throw new Error(`no key ${name}`);
    used.add(value);
    return value;
  };
  const token = async (options: Parameters<Idp['token']>[0]) => {
    const value = await idp.token(options);
    used.add(value);
    return value;
  };
  const withKey = (name: string, method: string, route: string) =>
    send(server.baseUrl, method, route, { 'x-api-key': key(name) });
  const withToken = (value: string, method: string, route: string) => {
    used.add(value);
    return send(server.baseUrl, method, route, { authorization: `Bearer ${value}` });
  };
  const expect401 = (reply: Reply) => {
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toEqual(UNAUTHENTICATED);
  };
  const expect403 = (reply: Reply) => {
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ type: 'urn:odp:problem:forbidden', status: 403 });
  };
  /** Passed authentication and the role check (whatever the route then answers). */
  const expectAdmitted = (reply: Reply) => expect([401, 403]).not.toContain(reply.status);

  beforeAll(async () => {
    idp = await startIdp();
    server = await startServer({ env: idp.env });
    tenantA = String(server.tenantId);
    keys['systemA'] = String(server.systemKey);
    tenantB = String((await server.odp(['tenant', 'create', '--name', 'B']))['id']);

    const profile = async (sub: string, role: string, extra: string[] = []) =>
      String(
        (
          await server.odp([
            'profile',
            'create',
            '--tenant',
            tenantA,
            '--sub',
            sub,
            '--email',
            `${sub}@example.com`,
            '--role',
            role,
            ...extra,
          ])
        )['id'],
      );
    const [admin, member, viewer, suspended, lapsed] = await Promise.all([
      profile('ada', 'admin'),
      profile('max', 'member'),
      profile('vic', 'viewer'),
      profile('sus', 'admin'),
      profile('lap', 'admin', ['--active-until', '2020-01-01']),
    ]);
    await server.odp(['profile', 'suspend', '--tenant', tenantA, '--id', suspended]);
    const newKey = async (name: string, args: string[]) => {
      keys[name] = String((await server.odp(['key', 'create', ...args]))['key']);
    };
    await Promise.all([
      newKey('systemB', ['--tenant', tenantB]),
      newKey('admin', ['--tenant', tenantA, '--profile', admin]),
      newKey('member', ['--tenant', tenantA, '--profile', member]),
      newKey('viewer', ['--tenant', tenantA, '--profile', viewer]),
      newKey('suspended', ['--tenant', tenantA, '--profile', suspended]),
      newKey('lapsed', ['--tenant', tenantA, '--profile', lapsed]),
      newKey('expired', ['--tenant', tenantA, '--expires', '2020-01-01T00:00:00Z']),
      newKey('future', ['--tenant', tenantA, '--expires', '2099-01-01T00:00:00Z']),
    ]);
    const revoked = await server.odp(['key', 'create', '--tenant', tenantA]);
    keys['revoked'] = String(revoked['key']);
    await server.odp(['key', 'revoke', '--tenant', tenantA, '--id', String(revoked['id'])]);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await idp?.stop();
  });

  describe('API keys (Authentication: API keys 1-6)', () => {
    it('1. works on a route carrying its own tenant id', async () => {
      expect((await withKey('systemA', 'GET', `/tenants/${tenantA}`)).status).toBe(200);
      expect((await withKey('systemB', 'GET', `/tenants/${tenantB}`)).status).toBe(200);
    });

    it('1. is refused with 401 on a route of another tenant', async () => {
      expect401(await withKey('systemA', 'GET', `/tenants/${tenantB}`));
      expect401(await withKey('systemB', 'GET', `/data/${tenantA}/companies`));
    });

    it.each([
      ['GET', '/tenants'],
      ['POST', '/tenants'],
    ])('2. is refused with 401 on %s %s (no tenant segment)', async (method, route) => {
      expect401(await withKey('systemA', method, route));
    });

    it('3. a user-bound key runs as its profile, with its role', async () => {
      expect((await withKey('viewer', 'GET', `/tenants/${tenantA}`)).status).toBe(200);
      expect403(await withKey('viewer', 'POST', `/data/${tenantA}/companies`));
      expect403(await withKey('member', 'GET', `/admin/${tenantA}/modelStatus`));
      expectAdmitted(await withKey('admin', 'GET', `/admin/${tenantA}/modelStatus`));
    });

    it('3. a key of a suspended profile stops working (401)', async () => {
      expect401(await withKey('suspended', 'GET', `/tenants/${tenantA}`));
    });

    it('3. a key of a profile whose activeUntil has passed stops working (401)', async () => {
      expect401(await withKey('lapsed', 'GET', `/tenants/${tenantA}`));
    });

    it('4. a system key has no role restriction', async () => {
      for (const branch of ['admin', 'system', 'audit']) {
        expectAdmitted(await withKey('systemA', 'GET', `/${branch}/${tenantA}/anything`));
      }
      expectAdmitted(await withKey('systemA', 'DELETE', `/admin/${tenantA}/anything`));
      expectAdmitted(await withKey('systemA', 'POST', `/data/${tenantA}/companies`));
    });

    it('5. an expired key is refused with 401; one not yet expired works', async () => {
      expect401(await withKey('expired', 'GET', `/tenants/${tenantA}`));
      expect((await withKey('future', 'GET', `/tenants/${tenantA}`)).status).toBe(200);
    });

    it('5. a revoked key is refused with 401', async () => {
      expect401(await withKey('revoked', 'GET', `/tenants/${tenantA}`));
    });

    it('6. only a hash of each key is stored', async () => {
      const stored = await storedRegistry(server);
      const systemKey = keys['systemA'] ?? '';
      expect(stored).toContain(createHash('sha256').update(systemKey).digest('hex'));
      for (const value of Object.values(keys)) expect(stored).not.toContain(value);
    });
  });

  describe('access tokens (Authentication: access tokens 1-3, profiles)', () => {
    it.each(['RS256', 'ES256'] as const)(
      'accepts a valid %s token of a person with an active profile',
      async (alg) => {
        expect((await withToken(await token({ sub: 'ada', alg }), 'GET', `/tenants/${tenantA}`)).status).toBe(
          200,
        );
      },
    );

    it('1. refuses a token of another issuer (401)', async () => {
      expect401(
        await withToken(
          await token({ sub: 'ada', iss: 'http://127.0.0.1:1/other' }),
          'GET',
          `/tenants/${tenantA}`,
        ),
      );
    });

    it('2. refuses a token whose aud lacks the platform audience (401); accepts an aud list containing it', async () => {
      expect401(
        await withToken(await token({ sub: 'ada', aud: 'another-api' }), 'GET', `/tenants/${tenantA}`),
      );
      const listed = await token({ sub: 'ada', aud: ['another-api', AUDIENCE] });
      expect((await withToken(listed, 'GET', `/tenants/${tenantA}`)).status).toBe(200);
    });

    it('3. refuses a token signed by an unpublished key (401)', async () => {
      expect401(await withToken(await idp.foreignKeyToken('ada'), 'GET', `/tenants/${tenantA}`));
    });

    it('3. refuses an expired token (401)', async () => {
      expect401(await withToken(await token({ sub: 'ada', expiresIn: -60 }), 'GET', `/tenants/${tenantA}`));
    });

    it('the person is (iss, sub): the same sub from another issuer is not the same person', async () => {
      // A profile whose issuer differs from the token's: the person has no profile in the tenant.
      await server.odp([
        'profile',
        'create',
        '--tenant',
        tenantB,
        '--sub',
        'ada',
        '--email',
        'a@x',
        '--role',
        'admin',
        '--issuer',
        'https://elsewhere.example',
      ]);
      expect403(await withToken(await token({ sub: 'ada' }), 'GET', `/tenants/${tenantB}`));
    });

    it.each([
      ['without a profile in the tenant', 'nobody'],
      ['with a suspended profile', 'sus'],
      ['whose activeUntil has passed', 'lap'],
    ])('a person %s gets 403', async (_person, sub) => {
      expect403(await withToken(await token({ sub }), 'GET', `/tenants/${tenantA}`));
    });

    it('a signed-in person may use the routes without a tenant segment', async () => {
      expect((await withToken(await token({ sub: 'nobody' }), 'GET', '/tenants')).status).toBe(200);
    });
  });

  describe('roles (one scenario per row of the Roles table)', () => {
    const adminBranches = ['system', 'audit', 'admin'];

    it('admin: everything, including /system, /audit, /admin', async () => {
      const ada = await token({ sub: 'ada' });
      for (const branch of adminBranches)
        expectAdmitted(await withToken(ada, 'GET', `/${branch}/${tenantA}/x`));
      expectAdmitted(await withToken(ada, 'POST', `/data/${tenantA}/companies`));
      expectAdmitted(await withToken(ada, 'DELETE', `/admin/${tenantA}`));
    });

    it('member: reads and writes data; 403 on /system, /audit, /admin', async () => {
      const max = await token({ sub: 'max' });
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
        expectAdmitted(
          await withToken(max, method, `/data/${tenantA}/companies/00000000-0000-4000-8000-000000000000`),
        );
      }
      for (const branch of adminBranches) expect403(await withToken(max, 'GET', `/${branch}/${tenantA}/x`));
    });

    it('viewer: reads only (403 on POST, PATCH, DELETE); 403 on /system, /audit, /admin', async () => {
      const vic = await token({ sub: 'vic' });
      expectAdmitted(await withToken(vic, 'GET', `/data/${tenantA}/companies`));
      for (const method of ['POST', 'PATCH', 'DELETE']) {
        expect403(
          await withToken(vic, method, `/data/${tenantA}/companies/00000000-0000-4000-8000-000000000000`),
        );
      }
      for (const branch of adminBranches) expect403(await withToken(vic, 'GET', `/${branch}/${tenantA}/x`));
    });

    it('the role applies equally to a user-bound key', async () => {
      expect403(
        await withKey('viewer', 'DELETE', `/data/${tenantA}/companies/00000000-0000-4000-8000-000000000000`),
      );
      expect403(await withKey('member', 'GET', `/system/${tenantA}/serviceCallLogs`));
      expect403(await withKey('viewer', 'GET', `/audit/${tenantA}/access-control`));
    });
  });

  describe('one credential, and routes that need none', () => {
    it('no credential: 401', async () => {
      expect401(await send(server.baseUrl, 'GET', `/tenants/${tenantA}`));
      expect401(await send(server.baseUrl, 'GET', '/tenants'));
    });

    it('two credentials, both valid: 401 (never "the strongest wins")', async () => {
      const ada = await token({ sub: 'ada' });
      expect401(
        await send(server.baseUrl, 'GET', `/tenants/${tenantA}`, {
          'x-api-key': key('systemA'),
          authorization: `Bearer ${ada}`,
        }),
      );
    });

    it.each([
      ['two API keys', 'x-api-key', () => [key('systemA'), key('systemA')]],
      [
        'two access tokens',
        'authorization',
        async () => [`Bearer ${await token({ sub: 'ada' })}`, `Bearer ${await token({ sub: 'ada' })}`],
      ],
    ] as const)('the same header twice (%s): 401', async (_name, header, values) => {
      expect401(
        await send(server.baseUrl, 'GET', `/tenants/${tenantA}`, { [header]: [...(await values())] }),
      );
    });

    it('OPTIONS preflight needs no credential', async () => {
      expect((await send(server.baseUrl, 'OPTIONS', `/data/${tenantA}/companies`)).status).toBe(204);
    });

    it('/binaries/... needs no credential (an unknown token is a 404, not a 401)', async () => {
      expect((await send(server.baseUrl, 'GET', '/binaries/not-a-token')).status).toBe(404);
    });
  });

  describe('bad input: the same 401 body whatever the reason', () => {
    const route = () => `/tenants/${tenantA}`;
    const rawKeys: [string, () => string][] = [
      ['empty key', () => ''],
      ['unknown key', () => `odp_${'A'.repeat(43)}`],
      ['key without prefix', () => key('systemA').slice(4)],
      ['truncated key', () => key('systemA').slice(0, -1)],
      ['oversized key (8 KiB)', () => `odp_${'A'.repeat(8 * 1024)}`],
      ['non-ASCII key', () => `odp_${'é'.repeat(43)}`],
      ['key with a trailing space', () => `${key('systemA')}x`],
    ];

    it.each(rawKeys)('%s: 401', async (_name, value) => {
      expect401(await send(server.baseUrl, 'GET', route(), { 'x-api-key': value() }));
    });

    it.each([
      ['not a UUID', 'not-a-tenant'],
      ['upper-case UUID', () => tenantA.toUpperCase()],
      ['UUID with suffix', () => `${tenantA}x`],
      ['percent garbage', '%ZZ'],
    ])('malformed tenant id (%s) with a key: 401', async (_name, tenant) => {
      const id = typeof tenant === 'string' ? tenant : tenant();
      expect401(await withKey('systemA', 'GET', `/tenants/${id}`));
      expect401(await withKey('systemA', 'GET', `/data/${id}/companies`));
    });

    it('malformed tenant id with a valid token: 403 (no profile there, whatever the id)', async () => {
      expect403(await withToken(await token({ sub: 'ada' }), 'GET', '/tenants/not-a-tenant'));
    });

    const badTokens: [string, () => Promise<string>][] = [
      ['alg none', async () => idp.unsignedToken('ada')],
      ['HS256', () => idp.hmacToken('ada')],
      ['wrong audience', () => idp.token({ sub: 'ada', aud: 'someone-else' })],
      ['wrong issuer', () => idp.token({ sub: 'ada', iss: 'https://evil.example' })],
      ['expired', () => idp.token({ sub: 'ada', expiresIn: -3600 })],
      ['unknown kid', () => idp.token({ sub: 'ada', kid: 'no-such-kid' })],
      ['signed by another key', () => idp.foreignKeyToken('ada')],
      ['not a JWT', async () => 'abc.def.ghi'],
      ['oversized (12 KiB)', async () => 'a'.repeat(12 * 1024)],
    ];

    it.each(badTokens)('token %s: 401', async (_name, make) => {
      expect401(await withToken(await make(), 'GET', route()));
      expect401(await withToken(await make(), 'GET', '/tenants'));
    });

    it.each([
      ['Basic scheme', () => 'Basic YWRhOnNlY3JldA=='],
      ['Bearer without a token', () => 'Bearer '],
      ['empty header', () => ''],
    ])('authorization header %s: 401', async (_name, value) => {
      expect401(await send(server.baseUrl, 'GET', route(), { authorization: value() }));
    });

    it('headers beyond the HTTP server limit (16 KiB) are refused before authentication: 431 or a closed connection', async () => {
      const reply = await send(server.baseUrl, 'GET', route(), {
        'x-api-key': `odp_${'A'.repeat(64 * 1024)}`,
      }).catch((error: NodeJS.ErrnoException) => ({ status: 0, body: String(error.code) }));
      expect([
        { status: 431, body: '' },
        { status: 0, body: 'ECONNRESET' },
        { status: 0, body: 'EPIPE' },
      ]).toContainEqual(reply);
    });

    it('no credential value or hash appears in the server output', () => {
      const output = server.output();
      const systemKey = keys['systemA'] ?? '';
      // The system key is printed once at first start (the banner and the ready line), never again.
      expect(output.split(systemKey).length - 1).toBe(2);
      for (const value of used) {
        if (value !== systemKey) expect(output).not.toContain(value);
        expect(output).not.toContain(createHash('sha256').update(value).digest('hex'));
      }
      expect(output).toContain('"status":401');
    });
  });
});
