/** Further tenants of a test server, created through the `odp` command as an operator would. */
import path from 'node:path';
import { REPO_ROOT } from './server.js';
import type { TestServer } from './server.js';

/** A new tenant named `name` with the example CRM model (no data loaded), and its system key. */
export async function createCrmTenant(
  server: TestServer,
  name: string,
): Promise<{ id: string; key: string }> {
  const model = path.join(REPO_ROOT, 'examples/models/crm');
  const id = String((await server.odp(['tenant', 'create', '--name', name, '--model', model]))['id']);
  const key = String((await server.odp(['key', 'create', '--tenant', id]))['key']);
  return { id, key };
}
