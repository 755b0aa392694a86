/**
 * User profiles of a data API's tenant and their user-bound API keys, created through the `odp`
 * command as an operator would; and the named accounts of the access-control suites (`acl*`,
 * `audit*`, `capabilities*`, `search*`): a profile with a tenant role, extra roles and an optional
 * linked person, plus its key.
 */
import type { DataApi } from '../data-api.js';

export type TenantRole = 'admin' | 'member' | 'viewer';

export interface ProfileSpec {
  /** The token subject of the profile. */
  readonly sub: string;
  /** `<sub>@example.test` when left out. */
  readonly email?: string;
  readonly role: TenantRole;
  readonly extraRoles?: readonly string[];
  /** The person the profile is linked to (`/persons/own`, anchored access control). */
  readonly objectId?: string | null;
}

/** Creates the profile; resolves its id. */
export async function createProfile(api: DataApi, spec: ProfileSpec): Promise<string> {
  const extraRoles = spec.extraRoles ?? [];
  const profile = await api.server.odp([
    'profile',
    'create',
    '--tenant',
    api.tenant,
    '--sub',
    spec.sub,
    '--email',
    spec.email ?? `${spec.sub}@example.test`,
    '--role',
    spec.role,
    ...(extraRoles.length > 0 ? ['--roles', extraRoles.join(',')] : []),
    ...(spec.objectId ? ['--object', api.href('persons', spec.objectId)] : []),
  ]);
  return String(profile['id']);
}

/** Creates an API key bound to the profile; resolves the key. */
export async function createProfileKey(api: DataApi, profileId: string): Promise<string> {
  const key = await api.server.odp(['key', 'create', '--tenant', api.tenant, '--profile', profileId]);
  return String(key['key']);
}

export interface TestAccount {
  readonly name: string;
  readonly profileId: string;
  readonly key: string;
  readonly role: TenantRole;
  readonly extraRoles: readonly string[];
  readonly objectId: string | null;
}

export interface AccountSpec {
  readonly name: string;
  readonly role: TenantRole;
  readonly extraRoles?: readonly string[];
  readonly objectId?: string | null;
}

/** The account `name`: subject `acl-<name>`, email `<name>@example.test`. */
export async function createAccount(api: DataApi, spec: AccountSpec): Promise<TestAccount> {
  const extraRoles = spec.extraRoles ?? [];
  const objectId = spec.objectId ?? null;
  const profileId = await createProfile(api, {
    sub: `acl-${spec.name}`,
    email: `${spec.name}@example.test`,
    role: spec.role,
    extraRoles,
    objectId,
  });
  const key = await createProfileKey(api, profileId);
  return { name: spec.name, profileId, key, role: spec.role, extraRoles, objectId };
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
