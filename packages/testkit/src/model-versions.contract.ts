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
    const first = await registry.saveModelVersion(a.id, 'sha256:1', '{"files":{"a.json":"1"}}');
    expect(first).toMatchObject({ tenantId: a.id, version: 1, hash: 'sha256:1', bytes: 24 });
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
    const second = await registry.saveModelVersion(a.id, 'sha256:2', '{"files":{}}');
    expect(second.version).toBeGreaterThan(first.version);
    // The same content is the same version, whatever bundle text comes with it: versions never change.
    expect(await registry.saveModelVersion(a.id, 'sha256:1', 'other')).toEqual(first);
    expect(await registry.readModelVersion(a.id, first.version)).toEqual({
      record: first,
      bundle: '{"files":{"a.json":"1"}}',
    });
    expect(await registry.readModelVersion(a.id, 99)).toBeNull();
    expect(await registry.listModelVersions(a.id)).toEqual([first, second]);
    // Numbers are per tenant.
    expect((await registry.saveModelVersion(b.id, 'sha256:2', '{}')).version).toBe(1);
    expect(await registry.readModelVersion(b.id, second.version)).toBeNull();
    await expect(registry.saveModelVersion('no-such-tenant', 'sha256:3', '{}')).rejects.toThrow(
      NotFoundError,
    );
  });

  it('names one current version per tenant, seen by another connection, gone with the tenant', async () => {
    const other = await open('shared');
    try {
      const a = await registry.createTenant({ name: 'A', modelSource: null });
      const b = await registry.createTenant({ name: 'B', modelSource: null });
      expect(await registry.currentModelVersion(a.id)).toBeNull();
      const first = await registry.saveModelVersion(a.id, 'sha256:1', '{}');
      const second = await registry.saveModelVersion(a.id, 'sha256:2', '{}');
      await expect(registry.setCurrentModelVersion(a.id, 99)).rejects.toThrow(NotFoundError);
      await expect(registry.setCurrentModelVersion(b.id, first.version)).rejects.toThrow(NotFoundError);
      expect(await registry.currentModelVersion(a.id)).toBeNull();

      await registry.setCurrentModelVersion(a.id, second.version);
      expect(await other.currentModelVersion(a.id)).toEqual(second);
      await other.setCurrentModelVersion(a.id, first.version);
      expect(await registry.currentModelVersion(a.id)).toEqual(first);
      expect(await registry.currentModelVersion(b.id)).toBeNull();
      expect([...(await registry.currentModelVersions())]).toEqual([[a.id, first.version]]);

      expect(await registry.deleteTenant(a.id)).toBe(true);
      expect(await other.currentModelVersion(a.id)).toBeNull();
      expect(await other.listModelVersions(a.id)).toEqual([]);
      expect((await other.currentModelVersions()).size).toBe(0);
    } finally {
      await other.close();
    }
  });
}
