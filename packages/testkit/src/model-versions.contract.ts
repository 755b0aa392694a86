/**
 * The model versions of the PlatformRegistry contract: immutable bundles per content hash,
 * numbered per tenant, one current version per tenant seen through every connection, removed with
 * the tenant. Run by `describePlatformRegistryContract`.
 */
import { NotFoundError } from '@odp/core';
import type { PlatformRegistry } from '@odp/core';

export function describeModelVersionsContract(
  registry: PlatformRegistry,
  open: (shared?: 'shared') => Promise<PlatformRegistry>,
): void {
  it('stores model versions once per content hash, numbered per tenant, oldest first', async () => {
    const a = await registry.createTenant({ name: 'A', modelSource: null });
    const b = await registry.createTenant({ name: 'B', modelSource: null });
    const first = await registry.modelVersions.save(a.id, 'sha256:1', '{"files":{"a.json":"1"}}');
    expect(first).toMatchObject({ tenantId: a.id, version: 1, hash: 'sha256:1', bytes: 24 });
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
    const second = await registry.modelVersions.save(a.id, 'sha256:2', '{"files":{}}');
    expect(second.version).toBeGreaterThan(first.version);
    // The same content is the same version, whatever bundle text comes with it: versions never change.
    expect(await registry.modelVersions.save(a.id, 'sha256:1', 'other')).toEqual(first);
    expect(await registry.modelVersions.read(a.id, first.version)).toEqual({
      record: first,
      bundle: '{"files":{"a.json":"1"}}',
    });
    expect(await registry.modelVersions.read(a.id, 99)).toBeNull();
    expect(await registry.modelVersions.list(a.id)).toEqual([first, second]);
    // Numbers are per tenant.
    expect((await registry.modelVersions.save(b.id, 'sha256:2', '{}')).version).toBe(1);
    expect(await registry.modelVersions.read(b.id, second.version)).toBeNull();
    await expect(registry.modelVersions.save('no-such-tenant', 'sha256:3', '{}')).rejects.toThrow(
      NotFoundError,
    );
  });

  it('names one current version per tenant, seen by another connection, gone with the tenant', async () => {
    const other = await open('shared');
    try {
      const a = await registry.createTenant({ name: 'A', modelSource: null });
      const b = await registry.createTenant({ name: 'B', modelSource: null });
      expect(await registry.modelVersions.current(a.id)).toBeNull();
      const first = await registry.modelVersions.save(a.id, 'sha256:1', '{}');
      const second = await registry.modelVersions.save(a.id, 'sha256:2', '{}');
      await expect(registry.modelVersions.setCurrent(a.id, 99)).rejects.toThrow(NotFoundError);
      await expect(registry.modelVersions.setCurrent(b.id, first.version)).rejects.toThrow(NotFoundError);
      expect(await registry.modelVersions.current(a.id)).toBeNull();

      await registry.modelVersions.setCurrent(a.id, second.version);
      expect(await other.modelVersions.current(a.id)).toEqual(second);
      await other.modelVersions.setCurrent(a.id, first.version);
      expect(await registry.modelVersions.current(a.id)).toEqual(first);
      expect(await registry.modelVersions.current(b.id)).toBeNull();
      expect([...(await registry.modelVersions.currentOfAll())]).toEqual([[a.id, first.version]]);

      expect(await registry.deleteTenant(a.id)).toBe(true);
      expect(await other.modelVersions.current(a.id)).toBeNull();
      expect(await other.modelVersions.list(a.id)).toEqual([]);
      expect((await other.modelVersions.currentOfAll()).size).toBe(0);
    } finally {
      await other.close();
    }
  });
}
