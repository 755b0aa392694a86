/**
 * Accounts for the access-control suites (`acl*`, `audit*`, `capabilities*`): user profiles of the
 * demo tenant with a tenant role, extra roles and an optional linked person, each with a user-bound
 * API key, created through the `odp` command as an operator would.
 */
import type { DataApi } from './data-api.js';

export interface TestAccount {
  readonly name: string;
  readonly profileId: string;
  readonly key: string;
  readonly role: 'admin' | 'member' | 'viewer';
  readonly extraRoles: readonly string[];
  readonly objectId: string | null;
}

export interface AccountSpec {
  readonly name: string;
  readonly role: 'admin' | 'member' | 'viewer';
  readonly extraRoles?: readonly string[];
  readonly objectId?: string | null;
}

export async function createAccount(api: DataApi, spec: AccountSpec): Promise<TestAccount> {
  const extraRoles = spec.extraRoles ?? [];
  const objectId = spec.objectId ?? null;
  const profile = await api.server.odp([
    'profile',
    'create',
    '--tenant',
    api.tenant,
    '--sub',
    `acl-${spec.name}`,
    '--email',
    `${spec.name}@example.test`,
    '--role',
    spec.role,
    ...(extraRoles.length > 0 ? ['--roles', extraRoles.join(',')] : []),
    ...(objectId ? ['--object', api.href('persons', objectId)] : []),
  ]);
  const profileId = String(profile['id']);
  const key = await api.server.odp(['key', 'create', '--tenant', api.tenant, '--profile', profileId]);
  return { name: spec.name, profileId, key: String(key['key']), role: spec.role, extraRoles, objectId };
}

/** Creates the accounts one after another (each `odp` run is a process). */
export async function createAccounts(
  api: DataApi,
  specs: readonly AccountSpec[],
): Promise<Map<string, TestAccount>> {
  const accounts = new Map<string, TestAccount>();
  for (const spec of specs) accounts.set(spec.name, await createAccount(api, spec));
  return accounts;
}
