import type { PlatformRegistry } from '@odp/core';
import { createTenant } from './embedded.js';

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
  const { tenant, systemKey } = await createTenant({ registry }, { name: 'Demo CRM', modelDir: modelSource });
  await registry.setSetting(DEMO_TENANT_SETTING, tenant.id);
  return { tenantId: tenant.id, systemKey };
}
