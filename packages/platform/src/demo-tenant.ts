import { generateApiKey } from '@odp/auth';
import type { PlatformRegistry } from '@odp/core';

const DEMO_TENANT_SETTING = 'demoTenantId';

export interface DemoTenant {
  /** The demo tenant's id, or null when it was deleted. */
  readonly tenantId: string | null;
  /** The system key, only on the start that created the tenant (it is shown once). */
  readonly systemKey: string | null;
}

/**
 * On the first start of an empty registry, creates the demo tenant from `modelSource` and a system
 * key for it. Later starts return the remembered tenant id (null when it was deleted since).
 */
export async function ensureDemoTenant(registry: PlatformRegistry, modelSource: string): Promise<DemoTenant> {
  const remembered = await registry.getSetting(DEMO_TENANT_SETTING);
  if (remembered !== null) {
    return { tenantId: (await registry.getTenant(remembered)) === null ? null : remembered, systemKey: null };
  }
  if ((await registry.listTenants()).length > 0) return { tenantId: null, systemKey: null };
  const tenant = await registry.createTenant({ name: 'Demo CRM', modelSource });
  const { key, hash } = generateApiKey();
  await registry.createApiKey({ tenantId: tenant.id, profileId: null, expiresAt: null, keyHash: hash });
  await registry.setSetting(DEMO_TENANT_SETTING, tenant.id);
  return { tenantId: tenant.id, systemKey: key };
}
