import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '@odp/core';
import { applyMigrations, PLATFORM_MIGRATIONS } from './platform-migrations.js';
import { openPlatformStore } from './platform-store.js';
import type { PlatformStore } from './platform-store.js';

describe('platform store (sqlite)', () => {
  let dir: string;
  let store: PlatformStore;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-platform-'));
    store = openPlatformStore(path.join(dir, 'platform.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a new database as created, and an existing one not', async () => {
    expect(store.created).toBe(true);
    await store.close();
    store = openPlatformStore(path.join(dir, 'platform.sqlite'));
    expect(store.created).toBe(false);
  });

  it('creates, lists, reads and deletes tenants with their profiles and keys', async () => {
    const a = await store.createTenant({ name: 'A', modelSource: '/models/a' });
    const b = await store.createTenant({ name: 'B', modelSource: null });
    expect(a).toMatchObject({ name: 'A', modelSource: '/models/a' });
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.webhookSecret.length).toBeGreaterThanOrEqual(40);
    expect(await store.getTenant(a.id)).toEqual(a);
    expect((await store.listTenants()).map((t) => t.name)).toEqual(['A', 'B']);

    const profile = await store.createProfile({
      tenantId: a.id,
      issuer: 'iss',
      subject: 'sub',
      email: 'a@x',
      role: 'admin',
    });
    const key = await store.createApiKey({
      tenantId: a.id,
      profileId: profile.id,
      expiresAt: null,
      keyHash: 'h1',
    });
    expect(await store.deleteTenant(a.id)).toBe(true);
    expect(await store.deleteTenant(a.id)).toBe(false);
    expect(await store.getTenant(a.id)).toBeNull();
    expect(await store.getProfile(a.id, profile.id)).toBeNull();
    expect(await store.findApiKeyByHash('h1')).toBeNull();
    expect(key.tenantId).toBe(a.id);
    expect(await store.getTenant(b.id)).toEqual(b);
  });

  it('keeps one profile per person and tenant, found by (issuer, subject)', async () => {
    const t = await store.createTenant({ name: 'T', modelSource: null });
    const p = await store.createProfile({
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
      store.createProfile({ tenantId: t.id, issuer: 'iss', subject: 'sub', email: 'other', role: 'admin' }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await store.findProfileByPerson(t.id, 'iss', 'sub')).toEqual(p);
    expect(await store.findProfileByPerson(t.id, 'other-iss', 'sub')).toBeNull();
    expect(await store.findProfileByEmail(t.id, 'ann@example.com')).toEqual(p);
    expect(await store.profilesLinkedTo(t.id, 'obj-1')).toEqual([
      { profileId: p.id, role: 'viewer', extraRoles: ['sales'] },
    ]);
    await expect(
      store.createProfile({ tenantId: 'missing', issuer: null, subject: null, email: 'x', role: 'admin' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('allows several profiles without a sign-in identity', async () => {
    const t = await store.createTenant({ name: 'T', modelSource: null });
    await store.createProfile({ tenantId: t.id, issuer: null, subject: null, email: 'a', role: 'member' });
    const second = await store.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'b',
      role: 'member',
    });
    expect(second).toMatchObject({ issuer: null, subject: null });
  });

  it('links a profile to its person object', async () => {
    const t = await store.createTenant({ name: 'T', modelSource: null });
    const p = await store.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'a',
      role: 'member',
    });
    expect(await store.linkProfile(t.id, p.id, 'person-1')).toMatchObject({ id: p.id, objectId: 'person-1' });
    expect(await store.profilesLinkedTo(t.id, 'person-1')).toEqual([
      { profileId: p.id, role: 'member', extraRoles: [] },
    ]);
    await expect(store.linkProfile(t.id, 'nope', 'person-1')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stores invitations by token hash; a signed-in person redeems one once, before it expires', async () => {
    const t = await store.createTenant({ name: 'T', modelSource: null });
    const invited = await store.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'ann@example.test',
      role: 'viewer',
    });
    await store.setProfileActive(t.id, invited.id, false);
    const now = new Date('2030-01-01T00:00:00.000Z');
    const expiresAt = '2030-01-15T00:00:00.000Z';
    const invitation = await store.createInvitation({
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
    await store.createInvitation({
      tenantId: t.id,
      profileId: invited.id,
      tokenHash: 'hash-2',
      expiresAt: '2029-12-31T00:00:00.000Z',
    });
    expect(JSON.stringify(await store.listInvitations(t.id))).not.toContain('hash-');
    await expect(store.acceptInvitation('hash-2', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(store.acceptInvitation('unknown', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const accepted = await store.acceptInvitation('hash-1', 'https://idp', 'ann', now);
    expect(accepted).toMatchObject({
      id: invited.id,
      issuer: 'https://idp',
      subject: 'ann',
      active: true,
      role: 'viewer',
    });
    expect(await store.findProfileByPerson(t.id, 'https://idp', 'ann')).toMatchObject({ id: invited.id });
    expect((await store.listInvitations(t.id))[0]).toMatchObject({ acceptedAt: now.toISOString() });
    await expect(store.acceptInvitation('hash-1', 'https://idp', 'ann', now)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      store.createInvitation({ tenantId: t.id, profileId: 'nope', tokenHash: 'hash-3', expiresAt }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to redeem an invitation to a profile of another person, or for a person with a profile', async () => {
    const t = await store.createTenant({ name: 'T', modelSource: null });
    const owned = await store.createProfile({
      tenantId: t.id,
      issuer: 'https://idp',
      subject: 'bob',
      email: 'b',
      role: 'member',
    });
    const open = await store.createProfile({
      tenantId: t.id,
      issuer: null,
      subject: null,
      email: 'c',
      role: 'member',
    });
    const expiresAt = '2030-01-15T00:00:00.000Z';
    await store.createInvitation({ tenantId: t.id, profileId: owned.id, tokenHash: 'to-owned', expiresAt });
    await store.createInvitation({ tenantId: t.id, profileId: open.id, tokenHash: 'to-open', expiresAt });
    const now = new Date('2030-01-01T00:00:00.000Z');
    await expect(store.acceptInvitation('to-owned', 'https://idp', 'eve', now)).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(store.acceptInvitation('to-open', 'https://idp', 'bob', now)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await store.getProfile(t.id, open.id)).toMatchObject({ subject: null });
    expect(await store.acceptInvitation('to-owned', 'https://idp', 'bob', now)).toMatchObject({
      id: owned.id,
    });
  });

  it('suspends and activates profiles; lists only tenants with an active profile', async () => {
    const t1 = await store.createTenant({ name: 'T1', modelSource: null });
    const t2 = await store.createTenant({ name: 'T2', modelSource: null });
    const t3 = await store.createTenant({ name: 'T3', modelSource: null });
    const p1 = await store.createProfile({
      tenantId: t1.id,
      issuer: 'i',
      subject: 's',
      email: 'e',
      role: 'admin',
    });
    await store.createProfile({
      tenantId: t2.id,
      issuer: 'i',
      subject: 's',
      email: 'e',
      role: 'admin',
      activeUntil: '2026-01-01',
    });
    await store.createProfile({ tenantId: t3.id, issuer: 'i', subject: 'other', email: 'e', role: 'admin' });
    const now = new Date('2026-01-01T23:59:00Z');
    expect((await store.tenantsOfPerson('i', 's', now)).map((t) => t.name)).toEqual(['T1', 'T2']);
    expect(
      (await store.tenantsOfPerson('i', 's', new Date('2026-01-02T00:00:00Z'))).map((t) => t.name),
    ).toEqual(['T1']);
    expect(await store.setProfileActive(t1.id, p1.id, false)).toMatchObject({ active: false });
    expect(await store.tenantsOfPerson('i', 's', now)).toHaveLength(1);
    expect(await store.setProfileActive(t1.id, p1.id, true)).toMatchObject({ active: true });
    await expect(store.setProfileActive(t2.id, p1.id, false)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stores keys by hash, revokes idempotently, refuses a profile of another tenant', async () => {
    const t1 = await store.createTenant({ name: 'T1', modelSource: null });
    const t2 = await store.createTenant({ name: 'T2', modelSource: null });
    const p2 = await store.createProfile({
      tenantId: t2.id,
      issuer: null,
      subject: null,
      email: 'e',
      role: 'admin',
    });
    await expect(
      store.createApiKey({ tenantId: t1.id, profileId: p2.id, expiresAt: null, keyHash: 'h' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const key = await store.createApiKey({
      tenantId: t1.id,
      profileId: null,
      expiresAt: '2030-01-01T00:00:00.000Z',
      keyHash: 'h',
    });
    expect(await store.findApiKeyByHash('h')).toEqual(key);
    const now = new Date('2026-05-05T00:00:00Z');
    const revoked = await store.revokeApiKey(t1.id, key.id, now);
    expect(revoked.revokedAt).toBe(now.toISOString());
    expect((await store.revokeApiKey(t1.id, key.id, new Date())).revokedAt).toBe(now.toISOString());
    await expect(store.revokeApiKey(t2.id, key.id, now)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps settings', async () => {
    expect(await store.getSetting('demoTenantId')).toBeNull();
    await store.setSetting('demoTenantId', 'a');
    await store.setSetting('demoTenantId', 'b');
    expect(await store.getSetting('demoTenantId')).toBe('b');
  });

  it('answers the next read after a write of this or another connection with the new state', async () => {
    const other = openPlatformStore(path.join(dir, 'platform.sqlite'));
    try {
      const tenant = await store.createTenant({ name: 'T', modelSource: null });
      const profile = await store.createProfile({
        tenantId: tenant.id,
        issuer: 'iss',
        subject: 'sub',
        email: 'e',
        role: 'member',
      });
      const key = await store.createApiKey({
        tenantId: tenant.id,
        profileId: null,
        expiresAt: null,
        keyHash: 'h',
      });
      expect(await store.findApiKeyByHash('h')).toEqual(key);
      expect(await store.findApiKeyByHash('unknown')).toBeNull();
      expect((await store.getProfile(tenant.id, profile.id))?.active).toBe(true);
      expect(await store.getSetting('s')).toBeNull();

      await other.revokeApiKey(tenant.id, key.id, new Date('2026-05-05T00:00:00Z'));
      await other.setProfileActive(tenant.id, profile.id, false);
      await other.setSetting('s', 'from another process');
      await other.createApiKey({ tenantId: tenant.id, profileId: null, expiresAt: null, keyHash: 'unknown' });
      expect((await store.findApiKeyByHash('h'))?.revokedAt).toBe('2026-05-05T00:00:00.000Z');
      expect(await store.findApiKeyByHash('unknown')).not.toBeNull();
      expect((await store.findProfileByPerson(tenant.id, 'iss', 'sub'))?.active).toBe(false);
      expect((await store.getProfile(tenant.id, profile.id))?.active).toBe(false);
      expect(await store.getSetting('s')).toBe('from another process');

      await store.setProfileActive(tenant.id, profile.id, true);
      await store.setSetting('s', 'own');
      expect((await store.getProfile(tenant.id, profile.id))?.active).toBe(true);
      expect(await store.getSetting('s')).toBe('own');
      expect(await other.getSetting('s')).toBe('own');
      expect(await store.deleteTenant(tenant.id)).toBe(true);
      expect(await store.findApiKeyByHash('h')).toBeNull();
      expect(await store.getProfile(tenant.id, profile.id)).toBeNull();
    } finally {
      await other.close();
    }
  });
});

describe('applyMigrations', () => {
  it('applies pending migrations once and refuses a newer database', () => {
    const db = new Database(':memory:');
    expect(applyMigrations(db, PLATFORM_MIGRATIONS)).toBe(0);
    expect(applyMigrations(db, PLATFORM_MIGRATIONS)).toBe(PLATFORM_MIGRATIONS.length);
    const next = [
      ...PLATFORM_MIGRATIONS,
      { version: PLATFORM_MIGRATIONS.length + 1, name: 'x', up: 'CREATE TABLE x (a)' },
    ];
    expect(applyMigrations(db, next)).toBe(PLATFORM_MIGRATIONS.length);
    expect(db.pragma('user_version', { simple: true })).toBe(next.length);
    expect(() => applyMigrations(db, PLATFORM_MIGRATIONS)).toThrow(/newer than this release/);
    db.close();
  });

  it('rolls back a failing migration with its version bump', () => {
    const db = new Database(':memory:');
    const failing = [{ version: 1, name: 'bad', up: 'CREATE TABLE y (a); SELECT * FROM missing_table' }];
    expect(() => applyMigrations(db, failing)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'y'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses numbering with gaps', () => {
    const db = new Database(':memory:');
    expect(() => applyMigrations(db, [{ version: 2, name: 'gap', up: '' }])).toThrow(/expected 1/);
    db.close();
  });
});
