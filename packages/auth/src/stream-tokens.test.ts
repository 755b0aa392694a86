import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlitePlatformRegistry } from '@odp/store-sqlite';
import type { SqlitePlatformRegistry } from '@odp/store-sqlite';
import { STREAM_TOKEN_TTL_MS, StreamTokens } from './stream-tokens.js';

const SECRET = 'a-secret-key-of-at-least-thirty-two-characters';
let dir: string;
let registry: SqlitePlatformRegistry;
let tenantId: string;
let profileId: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-stream-tokens-'));
  registry = openSqlitePlatformRegistry(path.join(dir, 'platform.sqlite'));
  tenantId = (await registry.createTenant({ name: 't', modelSource: null })).id;
  profileId = (
    await registry.createProfile({
      tenantId,
      issuer: 'iss',
      subject: 'ann',
      email: 'ann@x.test',
      role: 'member',
    })
  ).id;
});
afterAll(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('event-stream tokens', () => {
  const tokens = new StreamTokens(SECRET);
  const issuedAt = new Date('2030-01-01T00:00:00.000Z');
  const at = (ms: number) => new Date(issuedAt.getTime() + ms);

  it('open the stream as the account they were issued to, until they expire', async () => {
    const system = tokens.issue({ kind: 'system', tenantId }, issuedAt);
    expect(system.expiresAt).toBe(at(STREAM_TOKEN_TTL_MS).toISOString());
    expect(await tokens.open(system.token, tenantId, registry, at(STREAM_TOKEN_TTL_MS - 1))).toEqual({
      kind: 'system',
      tenantId,
    });
    expect(await tokens.open(system.token, tenantId, registry, at(STREAM_TOKEN_TTL_MS))).toBeNull();
  });

  it('take a user account from the registry at every use (a suspended profile opens nothing)', async () => {
    const profile = await registry.getProfile(tenantId, profileId);
    if (profile === null) throw new Error('no profile');
    const { token } = tokens.issue(
      {
        kind: 'user',
        tenantId,
        profileId,
        role: 'member',
        extraRoles: [],
        objectId: null,
        email: profile.email,
      },
      issuedAt,
    );
    expect(await tokens.open(token, tenantId, registry, at(1000))).toMatchObject({ kind: 'user', profileId });
    await registry.setProfileActive(tenantId, profileId, false);
    expect(await tokens.open(token, tenantId, registry, at(1000))).toBeNull();
    await registry.setProfileActive(tenantId, profileId, true);
  });

  it.each([
    ['another tenant', (token: string) => ({ token, tenant: '00000000-0000-4000-8000-000000000000' })],
    [
      'another secret key',
      (token: string) => ({ token, tenant: tenantId, tokens: new StreamTokens(`${SECRET}!`) }),
    ],
    ['a changed payload', (token: string) => ({ token: `e30${token.slice(3)}`, tenant: tenantId })],
  ])('open nothing for %s', async (_label, vary) => {
    const { token } = tokens.issue({ kind: 'system', tenantId }, issuedAt);
    const variant = vary(token) as { token: string; tenant: string; tokens?: StreamTokens };
    expect(
      await (variant.tokens ?? tokens).open(variant.token, variant.tenant, registry, at(1000)),
    ).toBeNull();
  });
});
