/**
 * Further tenants of a test server, created through the `odp` command as an operator would (for the
 * isolation suites, which check what one tenant does to another).
 */
import path from 'node:path';
import { REPO_ROOT } from './server.js';
import type { TestServer } from './server.js';

export interface OtherTenant {
  readonly id: string;
  readonly key: string;
}

/**
 * A new tenant named `name` with the example CRM model and its system key; with `defaultData`, the
 * model's default data loaded too.
 */
export async function createCrmTenant(
  server: TestServer,
  name: string,
  options: { readonly defaultData?: boolean } = {},
): Promise<OtherTenant> {
  const model = path.join(REPO_ROOT, 'examples/models/crm');
  const id = String((await server.odp(['tenant', 'create', '--name', name, '--model', model]))['id']);
  const key = String((await server.odp(['key', 'create', '--tenant', id]))['key']);
  if (options.defaultData === true) {
    const loaded = await fetch(`${server.baseUrl}/data/${id}/loadDefaultData`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
    });
    if (loaded.status !== 200) throw new Error(`loadDefaultData of ${name}: ${loaded.status}`);
  }
  return { id, key };
}
