/**
 * `sharedRegistry` (from @odp/core) as the api composes it in scale-out: two instances, each with
 * its own cache over one registry, coordinated through the in-process channel and through Redis.
 * The registry underneath is the SQLite one, observed through a counter of the reads that reach it,
 * so the tests show which reads the cache answered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRedisCoordination } from '@odp/redis';
import { createInProcessCoordination, isApiKeyUsable, sharedRegistry } from '@odp/core';
import type { Coordination, PlatformRegistry } from '@odp/core';
import { describeWithEngine } from '@odp/testkit';
import { openSqlitePlatformRegistry } from '@odp/store-sqlite';
import type { SqlitePlatformRegistry } from '@odp/store-sqlite';

/** The registry with every call passed through, counting the key lookups that reach it. */
function counted(registry: PlatformRegistry): { registry: PlatformRegistry; keyReads: () => number } {
  let keyReads = 0;
  const proxy = new Proxy(registry, {
    get(target, property) {
      if (property === 'findApiKeyByHash') {
        return (hash: string) => {
          keyReads += 1;
          return target.findApiKeyByHash(hash);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { registry: proxy, keyReads: () => keyReads };
}

function describeSharedRegistry(name: string, open: () => Promise<Coordination>): void {
  describe(`sharedRegistry over ${name}`, () => {
    let dir: string;
    let store: SqlitePlatformRegistry;
    let coordinations: Coordination[];
    let a: PlatformRegistry;
    let b: PlatformRegistry;
    let readsOfB: () => number;

    beforeEach(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'odp-shared-registry-'));
      store = openSqlitePlatformRegistry(path.join(dir, 'platform.sqlite'));
      coordinations = [await open(), await open()];
      a = sharedRegistry(store, coordinations[0]!.invalidations);
      const underB = counted(store);
      b = sharedRegistry(underB.registry, coordinations[1]!.invalidations);
      readsOfB = underB.keyReads;
    });
    afterEach(async () => {
      for (const coordination of coordinations) await coordination.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers repeated reads from memory and refuses a key revoked through another instance on the next read', async () => {
      const tenant = await a.createTenant({ name: 'T', modelSource: null });
      const key = await a.createApiKey({
        tenantId: tenant.id,
        profileId: null,
        expiresAt: null,
        keyHash: 'h1',
      });
      expect(isApiKeyUsable((await b.findApiKeyByHash('h1'))!, new Date())).toBe(true);
      expect(isApiKeyUsable((await b.findApiKeyByHash('h1'))!, new Date())).toBe(true);
      expect(readsOfB()).toBe(1);
      await a.revokeApiKey(tenant.id, key.id, new Date());
      expect(isApiKeyUsable((await b.findApiKeyByHash('h1'))!, new Date())).toBe(false);
      expect(readsOfB()).toBe(2);
    });

    it('sees a profile suspended and a tenant deleted through another instance', async () => {
      const tenant = await a.createTenant({ name: 'T', modelSource: null });
      const profile = await a.createProfile({
        tenantId: tenant.id,
        issuer: 'i',
        subject: 's',
        email: 'p@example.com',
        role: 'member',
      });
      expect((await b.getProfile(tenant.id, profile.id))?.active).toBe(true);
      expect((await b.findProfileByPerson(tenant.id, 'i', 's'))?.active).toBe(true);
      await a.setProfileActive(tenant.id, profile.id, false);
      expect((await b.getProfile(tenant.id, profile.id))?.active).toBe(false);
      expect((await b.findProfileByPerson(tenant.id, 'i', 's'))?.active).toBe(false);
      expect(await b.getTenant(tenant.id)).not.toBeNull();
      await a.deleteTenant(tenant.id);
      expect(await b.getTenant(tenant.id)).toBeNull();
    });

    it('tells listeners what changed', async () => {
      const heard: unknown[] = [];
      await coordinations[1]!.invalidations.subscribe((message) => heard.push(message));
      const tenant = await a.createTenant({ name: 'T', modelSource: null });
      await a.setSetting(`s:${tenant.id}`, 'v');
      await a.deleteTenant(tenant.id);
      const deadline = Date.now() + 2000;
      const mine = () => heard.filter((m) => JSON.stringify(m).includes(tenant.id));
      while (mine().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(mine()).toEqual([
        { kind: 'tenant', tenantId: tenant.id },
        { kind: 'setting', key: `s:${tenant.id}` },
        { kind: 'tenant', tenantId: tenant.id },
      ]);
    });
  });
}

const inProcess = createInProcessCoordination();
describeSharedRegistry('the in-process channel', async () => inProcess);
describeWithEngine('sharedRegistry over Redis', 'ODP_TEST_REDIS_URL', (url) => {
  describeSharedRegistry('Redis', () => openRedisCoordination(url));
});
