/**
 * API keys and user profiles over REST (`/admin/{tenant}/apiKeys`, `/admin/{tenant}/profiles`;
 * docs/sign-in.md): an admin creates a profile, a key for it that works once shown, links and
 * suspends the profile and revokes the key; a member is refused; a profile admin cannot mint a
 * system key; bad input is a 400 naming the field; a second tenant's key is 404.
 */
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccount } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

describe('keys and profiles over REST', () => {
  let api: DataApi;
  let admin: TestAccount;
  let member: TestAccount;
  const admin$ = (method: string, route: string, key: string | null | undefined, body?: unknown) =>
    fetch(`${api.server.baseUrl}/admin/${api.tenant}${route}`, {
      method,
      headers: {
        ...(key === null ? {} : { 'X-API-Key': key ?? api.systemKey }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    api = await startDataServer();
    admin = await createAccount(api, { name: 'keyadmin', role: 'admin' });
    member = await createAccount(api, { name: 'keymember', role: 'member', objectId: DEMO.bob });
  }, 180_000);
  afterAll(async () => {
    await api?.server.stop();
  });

  it('creates a profile and a key for it that works, links, suspends and revokes', async () => {
    const created = await admin$('POST', '/profiles', admin.key, {
      email: 'new@example.test',
      role: 'viewer',
    });
    expect(created.status).toBe(201);
    const profile = (await created.json()) as Json;
    expect(profile).toEqual(
      expect.objectContaining({ email: 'new@example.test', role: 'viewer', subject: null, activeNow: true }),
    );
    const listed = (await (await admin$('GET', '/profiles', admin.key)).json()) as { profiles: Json[] };
    expect(listed.profiles.map((p) => p['id'])).toContain(profile['id']);

    const keyAnswer = await admin$('POST', '/apiKeys', admin.key, {
      profileId: profile['id'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(keyAnswer.status).toBe(201);
    expect(keyAnswer.headers.get('cache-control')).toBe('no-store');
    const key = (await keyAnswer.json()) as { id: string; key: string; state: string };
    expect(key.key).toMatch(/^odp_/);
    expect(key.state).toBe('valid');
    const keys = (await (await admin$('GET', '/apiKeys', admin.key)).json()) as { keys: Json[] };
    expect(keys.keys.find((k) => k['id'] === key.id)).toEqual(expect.objectContaining({ state: 'valid' }));
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect((await api.call('GET', `/companies/${DEMO.acme}`, { key: key.key })).status).not.toBe(401);

    const linked = await admin$('PATCH', `/profiles/${String(profile['id'])}`, admin.key, {
      objectId: api.href('persons', DEMO.carla),
    });
    expect(linked.status).toBe(200);
    expect(((await linked.json()) as Json)['objectId']).toBe(DEMO.carla);

    const suspended = await admin$('PATCH', `/profiles/${String(profile['id'])}`, admin.key, {
      active: false,
    });
    expect(((await suspended.json()) as Json)['activeNow']).toBe(false);
    expect((await api.call('GET', '/companies', { key: key.key })).status).toBe(401);
    await admin$('PATCH', `/profiles/${String(profile['id'])}`, admin.key, { active: true });

    const revoked = await admin$('DELETE', `/apiKeys/${key.id}`, admin.key);
    expect(((await revoked.json()) as Json)['state']).toBe('revoked');
    expect((await api.call('GET', '/companies', { key: key.key })).status).toBe(401);
  });

  it('only a system key makes a system key', async () => {
    const byProfile = await admin$('POST', '/apiKeys', admin.key, {});
    expect(byProfile.status).toBe(403);
    const bySystem = await admin$('POST', '/apiKeys', undefined, {});
    expect(bySystem.status).toBe(201);
    expect(((await bySystem.json()) as Json)['profileId']).toBeNull();
  });

  it('refuses a member, bad input and unknown ids', async () => {
    expect((await admin$('GET', '/apiKeys', member.key)).status).toBe(403);
    expect(
      (await admin$('POST', '/profiles', member.key, { email: 'x@example.test', role: 'admin' })).status,
    ).toBe(403);
    const bad = await admin$('POST', '/profiles', admin.key, { email: 'x@example.test', role: 'owner' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: Json[] }).errors).toEqual([
      expect.objectContaining({ field: 'role' }),
    ]);
    const past = await admin$('POST', '/apiKeys', admin.key, {
      profileId: admin.profileId,
      expiresAt: '2001-01-01',
    });
    expect(past.status).toBe(400);
    expect((await admin$('DELETE', '/apiKeys/00000000-0000-4000-8000-000000000000', admin.key)).status).toBe(
      404,
    );
    const noChange = await admin$('PATCH', `/profiles/${admin.profileId}`, admin.key, {});
    expect(noChange.status).toBe(400);
    const notObject = await admin$('POST', '/apiKeys', admin.key, '[1]');
    expect(notObject.status).toBe(400);
  });
});
