import { ForbiddenError, isApiKeyUsable, isProfileActive, UnauthenticatedError } from '@odp/core';
import type { Account, PlatformRegistry, UserProfile } from '@odp/core';
import { hashApiKey, isWellFormedApiKey } from './api-keys.js';
import type { Person, TokenVerifier } from './tokens.js';

/** The credential headers of a request, as received (undefined when absent). */
export interface CredentialHeaders {
  readonly apiKey: string | undefined;
  readonly authorization: string | undefined;
}

/**
 * What a route is scoped to: one tenant (the path carries its id, possibly malformed) or the
 * platform (`/tenants` without a tenant segment, which only signed-in persons may use).
 */
export type RouteScope =
  { readonly kind: 'tenant'; readonly tenantId: string } | { readonly kind: 'platform' };

export type Authentication =
  | { readonly kind: 'tenant'; readonly tenantId: string; readonly account: Account }
  | { readonly kind: 'person'; readonly person: Person };

export interface AuthenticateDeps {
  readonly registry: PlatformRegistry;
  /** null when no identity provider is configured: every token is refused. */
  readonly tokens: TokenVerifier | null;
  readonly now: () => Date;
}

const TENANT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BEARER_PATTERN = /^Bearer +(\S+)$/i;

/** Whether a path segment has the shape of a tenant id (a lower-case UUID). */
export function isTenantId(value: string): boolean {
  return TENANT_ID_PATTERN.test(value);
}

/**
 * Resolves a request's single credential to a tenant account (or, on platform routes, a person).
 * Decided before any tenant data is read, in this order:
 * - no credential, or both headers -> 401;
 * - API key: malformed, unknown, expired or revoked, on a platform route, of another tenant, or
 *   bound to a suspended or lapsed profile -> 401;
 * - access token: invalid signature, algorithm, issuer, audience or expiry -> 401; on a tenant
 *   route, no active profile of the person in that tenant -> 403.
 * Every 401 is the same UnauthenticatedError, so a response never tells which check failed.
 */
export async function authenticate(
  headers: CredentialHeaders,
  scope: RouteScope,
  deps: AuthenticateDeps,
): Promise<Authentication> {
  const { apiKey, authorization } = headers;
  if (apiKey !== undefined && authorization === undefined) return authenticateKey(apiKey, scope, deps);
  if (authorization !== undefined && apiKey === undefined)
    return authenticateToken(authorization, scope, deps);
  throw new UnauthenticatedError();
}

async function authenticateKey(
  value: string,
  scope: RouteScope,
  deps: AuthenticateDeps,
): Promise<Authentication> {
  if (scope.kind !== 'tenant' || !isTenantId(scope.tenantId) || !isWellFormedApiKey(value)) {
    throw new UnauthenticatedError();
  }
  const now = deps.now();
  const key = await deps.registry.findApiKeyByHash(hashApiKey(value));
  if (key === null || !isApiKeyUsable(key, now) || key.tenantId !== scope.tenantId) {
    throw new UnauthenticatedError();
  }
  if (key.profileId === null) {
    return { kind: 'tenant', tenantId: key.tenantId, account: { kind: 'system', tenantId: key.tenantId } };
  }
  const profile = await deps.registry.getProfile(key.tenantId, key.profileId);
  if (profile === null || !isProfileActive(profile, now)) throw new UnauthenticatedError();
  return { kind: 'tenant', tenantId: key.tenantId, account: accountOf(profile) };
}

async function authenticateToken(
  authorization: string,
  scope: RouteScope,
  deps: AuthenticateDeps,
): Promise<Authentication> {
  const token = BEARER_PATTERN.exec(authorization)?.[1];
  if (token === undefined || deps.tokens === null) throw new UnauthenticatedError();
  const person = await deps.tokens.verify(token);
  if (scope.kind === 'platform') return { kind: 'person', person };
  const profile = isTenantId(scope.tenantId)
    ? await deps.registry.findProfileByPerson(scope.tenantId, person.issuer, person.subject)
    : null;
  if (profile === null || !isProfileActive(profile, deps.now())) {
    throw new ForbiddenError('The signed-in person has no active profile in this tenant.');
  }
  return { kind: 'tenant', tenantId: profile.tenantId, account: accountOf(profile) };
}

/** The account a user profile runs as. */
export function accountOf(profile: UserProfile): Account {
  return {
    kind: 'user',
    tenantId: profile.tenantId,
    profileId: profile.id,
    role: profile.role,
    extraRoles: profile.extraRoles,
    objectId: profile.objectId,
    email: profile.email,
  };
}
