/**
 * The PlatformRegistry contract, backend-neutral: every adapter runs it from its own test file
 * (`describePlatformRegistryContract('sqlite', open)`). `open()` returns a fresh, empty registry per
 * call; `open('shared')` returns a second handle on the registry of the current test (another
 * process's connection), so that freshness across handles is checked: a key revoked or a profile
 * suspended through one handle is seen by the next read of the other.
 */
import { ConflictError, NotFoundError } from '@odp/core';
import type { PlatformRegistry } from '@odp/core';
import { describeModelVersionsContract } from './model-versions.contract.js';
import { perCase } from './per-case.js';

export function describePlatformRegistryContract(
  name: string,
  open: (shared?: 'shared') => Promise<PlatformRegistry>,
): void {
  describe(`PlatformRegistry contract: ${name}`, () => {
    const registry = perCase(
      () => open(),
      (opened) => opened.close(),
    );
    describeTenantsAndSettingsContract(registry);
    describeProfileIdentityContract(registry);
    describeProfilePersonContract(registry);
    describeInvitationsContract(registry);
    describeSuspensionAndKeysContract(registry);
    describeFreshnessContract(registry, open);
    describeModelVersionsContract(registry, open);
  });
}

/** Tenants with their profiles and keys, and platform settings. */
function describeTenantsAndSettingsContract(registry: PlatformRegistry): void {
  it('creates, lists, reads and deletes tenants with their profiles and keys', async () => {
    const a = await registry.createTenant({ name: 'A', modelSource: '/models/a' });
    const b = await registry.createTenant({ name: 'B', modelSource: null });
    expect(a).toMatchObject({ name: 'A', modelSource: '/models/a' });
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.webhookSecret.length).toBeGreaterThanOrEqual(40);
    expect(await registry.getTenant(a.id)).toEqual(a);
    expect((await registry.listTenants()).map((t) => t.name)).toEqual(['A', 'B']);

    const profile = await registry.createProfile({
      tenantId: a.id,
      issuer: 'iss',
      subject: 'sub',
      email: 'a@x',
      role: 'admin',
    });
    const key = await registry.createApiKey({
      tenantId: a.id,
      profileId: profile.id,
      expiresAt: null,
      keyHash: 'h1',
    });
    expect(await registry.deleteTenant(a.id)).toBe(true);
    expect(await registry.deleteTenant(a.id)).toBe(false);
    expect(await registry.getTenant(a.id)).toBeNull();
    expect(await registry.getProfile(a.id, profile.id)).toBeNull();
    expect(await registry.findApiKeyByHash('h1')).toBeNull();
    expect(key.tenantId).toBe(a.id);
    expect(await registry.getTenant(b.id)).toEqual(b);
  });

  it('keeps settings', async () => {
    expect(await registry.getSetting('demoTenantId')).toBeNull();
    await registry.setSetting('demoTenantId', 'a');
    await registry.setSetting('demoTenantId', 'b');
    expect(await registry.getSetting('demoTenantId')).toBe('b');
  });
}

/** One profile per person and tenant, found by its sign-in identity. */
function describeProfileIdentityContract(registry: PlatformRegistry): void {
  it('keeps one profile per person and tenant, found by (issuer, subject)', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    const p = await registry.createProfile({
      tenantId: t.id,
      issuer: 'iss',
      subject: 'sub',
      email: 'Ann@Example.com',
      role: 'viewer',
      extraRoles: ['sales'],
      objectId: 'obj-1',
      activeUntil: '2030-01-31',
    });
    expect(p).toMatchObject({
      issuer: 'iss',
      subject: 'sub',
      role: 'viewer',
      extraRoles: ['sales'],
      active: true,
    });
    await expect(
      registry.createProfile({
        tenantId: t.id,
        issuer: 'iss',
        subject: 'sub',
        email: 'other',
        role: 'admin',
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await registry.findProfileByPerson(t.id, 'iss', 'sub')).toEqual(p);
    expect(await registry.findProfileByPerson(t.id, 'other-iss', 'sub')).toBeNull();
    expect(await registry.findProfileByEmail(t.id, 'ann@example.com')).toEqual(p);
    expect(await registry.profilesLinkedTo(t.id, 'obj-1')).toEqual([
      { profileId: p.id, role: 'viewer', extraRoles: ['sales'] },
    ]);
    await expect(
      registry.createProfile({
        tenantId: 'missing',
        issuer: null,
        subject: null,
        email: 'x',
        role: 'admin',
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('allows several profiles without a sign-in identity', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'a',
      role: 'member',
    });
    const second = await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'b',
      role: 'member',
    });
    expect(second).toMatchObject({ issuer: null, subject: null });
  });
}

/** A profile linked to its person object, never moved to another. */
function describeProfilePersonContract(registry: PlatformRegistry): void {
  it('links a profile to its person object', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    const p = await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'a',
      role: 'member',
    });
    expect(await registry.linkProfile(t.id, p.id, 'person-1')).toMatchObject({
      id: p.id,
      objectId: 'person-1',
    });
    expect(await registry.profilesLinkedTo(t.id, 'person-1')).toEqual([
      { profileId: p.id, role: 'member', extraRoles: [] },
    ]);
    await expect(registry.linkProfile(t.id, 'nope', 'person-1')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('never moves the profile of a person who signed in to another person object', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    const signedIn = await registry.createProfile({
      tenantId: t.id,
      issuer: 'https://idp',
      subject: 'ann',
      email: 'ann@example.test',
      role: 'member',
    });
    // Not linked yet, linked to another object, suspended: a signed-in person's link stays as it is.
    await expect(registry.linkProfile(t.id, signedIn.id, 'person-2')).rejects.toBeInstanceOf(ConflictError);
    await registry.setProfileActive(t.id, signedIn.id, false);
    await expect(registry.linkProfile(t.id, signedIn.id, 'person-2')).rejects.toBeInstanceOf(ConflictError);
    expect(await registry.getProfile(t.id, signedIn.id)).toMatchObject({ objectId: null });
    expect(await registry.profilesLinkedTo(t.id, 'person-2')).toEqual([]);

    // Linked before the person signed in (the invitation's profile), then accepted: it stays linked there.
    const invited = await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'bob@example.test',
      role: 'member',
    });
    await registry.linkProfile(t.id, invited.id, 'person-1');
    await registry.createInvitation({
      tenantId: t.id,
      profileId: invited.id,
      tokenHash: 'to-bob',
      expiresAt: '2030-01-15T00:00:00.000Z',
    });
    await registry.acceptInvitation('to-bob', 'https://idp', 'bob', new Date('2030-01-01T00:00:00.000Z'));
    await expect(registry.linkProfile(t.id, invited.id, 'person-2')).rejects.toBeInstanceOf(ConflictError);
    expect(await registry.linkProfile(t.id, invited.id, 'person-1')).toMatchObject({
      objectId: 'person-1',
    });
    expect(await registry.getProfile(t.id, invited.id)).toMatchObject({ objectId: 'person-1' });
  });
}

/** Invitations stored by token hash, redeemed once, before expiry, by the invited person only. */
function describeInvitationsContract(registry: PlatformRegistry): void {
  it('stores invitations by token hash; a signed-in person redeems one once, before it expires', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    const invited = await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'ann@example.test',
      role: 'viewer',
    });
    await registry.setProfileActive(t.id, invited.id, false);
    const now = new Date('2030-01-01T00:00:00.000Z');
    const expiresAt = '2030-01-15T00:00:00.000Z';
    const invitation = await registry.createInvitation({
      tenantId: t.id,
      profileId: invited.id,
      tokenHash: 'hash-1',
      expiresAt,
    });
    expect(invitation).toMatchObject({
      profileId: invited.id,
      email: 'ann@example.test',
      expiresAt,
      acceptedAt: null,
    });
    await registry.createInvitation({
      tenantId: t.id,
      profileId: invited.id,
      tokenHash: 'hash-2',
      expiresAt: '2029-12-31T00:00:00.000Z',
    });
    expect(JSON.stringify(await registry.listInvitations(t.id))).not.toContain('hash-');
    await expect(registry.acceptInvitation('hash-2', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(registry.acceptInvitation('unknown', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const accepted = await registry.acceptInvitation('hash-1', 'https://idp', 'ann', now);
    expect(accepted).toMatchObject({
      id: invited.id,
      issuer: 'https://idp',
      subject: 'ann',
      active: true,
      role: 'viewer',
    });
    expect(await registry.findProfileByPerson(t.id, 'https://idp', 'ann')).toMatchObject({
      id: invited.id,
    });
    expect((await registry.listInvitations(t.id))[0]).toMatchObject({ acceptedAt: now.toISOString() });
    await expect(registry.acceptInvitation('hash-1', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      registry.createInvitation({ tenantId: t.id, profileId: 'nope', tokenHash: 'hash-3', expiresAt }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to redeem an invitation to a profile of another person, or for a person with a profile', async () => {
    const t = await registry.createTenant({ name: 'T', modelSource: null });
    const owned = await registry.createProfile({
      tenantId: t.id,
      issuer: 'https://idp',
      subject: 'bob',
      email: 'b',
      role: 'member',
    });
    const open = await registry.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'c',
      role: 'member',
    });
    const expiresAt = '2030-01-15T00:00:00.000Z';
    await registry.createInvitation({
      tenantId: t.id,
      profileId: owned.id,
      tokenHash: 'to-owned',
      expiresAt,
    });
    await registry.createInvitation({
      tenantId: t.id,
      profileId: open.id,
      tokenHash: 'to-open',
      expiresAt,
    });
    const now = new Date('2030-01-01T00:00:00.000Z');
    await expect(registry.acceptInvitation('to-owned', 'https://idp', 'eve', now)).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(registry.acceptInvitation('to-open', 'https://idp', 'bob', now)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await registry.getProfile(t.id, open.id)).toMatchObject({ subject: null });
    expect(await registry.acceptInvitation('to-owned', 'https://idp', 'bob', now)).toMatchObject({
      id: owned.id,
    });
  });
}

/** Suspended profiles, and keys stored by hash and revoked. */
function describeSuspensionAndKeysContract(registry: PlatformRegistry): void {
  it('suspends and activates profiles; lists only tenants with an active profile', async () => {
    const t1 = await registry.createTenant({ name: 'T1', modelSource: null });
    const t2 = await registry.createTenant({ name: 'T2', modelSource: null });
    const t3 = await registry.createTenant({ name: 'T3', modelSource: null });
    const p1 = await registry.createProfile({
      tenantId: t1.id,
      issuer: 'i',
      subject: 's',
      email: 'e',
      role: 'admin',
    });
    await registry.createProfile({
      tenantId: t2.id,
      issuer: 'i',
      subject: 's',
      email: 'e',
      role: 'admin',
      activeUntil: '2026-01-01',
    });
    await registry.createProfile({
      tenantId: t3.id,
      issuer: 'i',
      subject: 'other',
      email: 'e',
      role: 'admin',
    });
    const now = new Date('2026-01-01T23:59:00Z');
    expect((await registry.tenantsOfPerson('i', 's', now)).map((t) => t.name)).toEqual(['T1', 'T2']);
    expect(
      (await registry.tenantsOfPerson('i', 's', new Date('2026-01-02T00:00:00Z'))).map((t) => t.name),
    ).toEqual(['T1']);
    expect(await registry.setProfileActive(t1.id, p1.id, false)).toMatchObject({ active: false });
    expect(await registry.tenantsOfPerson('i', 's', now)).toHaveLength(1);
    expect(await registry.setProfileActive(t1.id, p1.id, true)).toMatchObject({ active: true });
    await expect(registry.setProfileActive(t2.id, p1.id, false)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stores keys by hash, revokes idempotently, refuses a profile of another tenant', async () => {
    const t1 = await registry.createTenant({ name: 'T1', modelSource: null });
    const t2 = await registry.createTenant({ name: 'T2', modelSource: null });
    const p2 = await registry.createProfile({
      tenantId: t2.id,
      issuer: null,
      subject: null,
      email: 'e',
      role: 'admin',
    });
    await expect(
      registry.createApiKey({ tenantId: t1.id, profileId: p2.id, expiresAt: null, keyHash: 'h' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const key = await registry.createApiKey({
      tenantId: t1.id,
      profileId: null,
      expiresAt: '2030-01-01T00:00:00.000Z',
      keyHash: 'h',
    });
    expect(await registry.findApiKeyByHash('h')).toEqual(key);
    const now = new Date('2026-05-05T00:00:00Z');
    const revoked = await registry.revokeApiKey(t1.id, key.id, now);
    expect(revoked.revokedAt).toBe(now.toISOString());
    expect((await registry.revokeApiKey(t1.id, key.id, new Date())).revokedAt).toBe(now.toISOString());
    await expect(registry.revokeApiKey(t2.id, key.id, now)).rejects.toBeInstanceOf(NotFoundError);
  });
}

/** A write through one connection is seen by the next read through another. */
function describeFreshnessContract(
  registry: PlatformRegistry,
  open: (shared?: 'shared') => Promise<PlatformRegistry>,
): void {
  it('answers the next read after a write of this or another connection with the new state', async () => {
    const other = await open('shared');
    try {
      const tenant = await registry.createTenant({ name: 'T', modelSource: null });
      const profile = await registry.createProfile({
        tenantId: tenant.id,
        issuer: 'iss',
        subject: 'sub',
        email: 'e',
        role: 'member',
      });
      const key = await registry.createApiKey({
        tenantId: tenant.id,
        profileId: null,
        expiresAt: null,
        keyHash: 'h',
      });
      expect(await registry.findApiKeyByHash('h')).toEqual(key);
      expect(await registry.findApiKeyByHash('unknown')).toBeNull();
      expect((await registry.getProfile(tenant.id, profile.id))?.active).toBe(true);
      expect(await registry.getSetting('s')).toBeNull();

      await other.revokeApiKey(tenant.id, key.id, new Date('2026-05-05T00:00:00Z'));
      await other.setProfileActive(tenant.id, profile.id, false);
      await other.setSetting('s', 'from another process');
      await other.createApiKey({
        tenantId: tenant.id,
        profileId: null,
        expiresAt: null,
        keyHash: 'unknown',
      });
      expect((await registry.findApiKeyByHash('h'))?.revokedAt).toBe('2026-05-05T00:00:00.000Z');
      expect(await registry.findApiKeyByHash('unknown')).not.toBeNull();
      expect((await registry.findProfileByPerson(tenant.id, 'iss', 'sub'))?.active).toBe(false);
      expect((await registry.getProfile(tenant.id, profile.id))?.active).toBe(false);
      expect(await registry.getSetting('s')).toBe('from another process');

      await registry.setProfileActive(tenant.id, profile.id, true);
      await registry.setSetting('s', 'own');
      expect((await registry.getProfile(tenant.id, profile.id))?.active).toBe(true);
      expect(await registry.getSetting('s')).toBe('own');
      expect(await other.getSetting('s')).toBe('own');
      expect(await registry.deleteTenant(tenant.id)).toBe(true);
      expect(await registry.findApiKeyByHash('h')).toBeNull();
      expect(await registry.getProfile(tenant.id, profile.id)).toBeNull();
    } finally {
      await other.close();
    }
  });
}
