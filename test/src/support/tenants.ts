/**
 * A second tenant beside a suite's demo tenant: the CRM example model with its default data, and a
 * system key of its own (for the isolation suites, which check what one tenant does to another).
 */
import path from 'node:path';
import type { DataApi } from '../data-api.js';
import { REPO_ROOT } from './server.js';

export interface OtherTenant {
  readonly id: string;
  readonly key: string;
}

/** Creates the tenant `name` on `api`'s server (`odp tenant create`, `odp key create`) with its data. */
export async function createCrmTenant(api: DataApi, name: string): Promise<OtherTenant> {
  const model = path.join(REPO_ROOT, 'examples/models/crm');
  const id = String((await api.server.odp(['tenant', 'create', '--name', name, '--model', model]))['id']);
  const key = String((await api.server.odp(['key', 'create', '--tenant', id]))['key']);
  const loaded = await fetch(`${api.server.baseUrl}/data/${id}/loadDefaultData`, {
    method: 'POST',
    headers: { 'X-API-Key': key },
  });
  if (loaded.status !== 200) throw new Error(`loadDefaultData of ${name}: ${loaded.status}`);
  return { id, key };
}
