import { UnauthenticatedError } from '@odp/core';
import type { Account } from '@odp/core';
import type { Authentication, Person } from '@odp/auth';
import type { Response } from 'express';

/**
 * The per-request context the authentication middleware stores in `res.locals`. Routes read it
 * through the typed accessors below, never through `res.locals` directly.
 */
export interface TenantRequest {
  readonly tenantId: string;
  readonly account: Account;
}

export function setAuthentication(res: Response, authentication: Authentication): void {
  res.locals['authentication'] = authentication;
}

function authenticationOf(res: Response): Authentication | undefined {
  return res.locals['authentication'] as Authentication | undefined;
}

/** The tenant and account of a request on a tenant route (`/data/{tenant}/...` and the like). */
export function tenantRequest(res: Response): TenantRequest {
  const authentication = authenticationOf(res);
  if (authentication?.kind !== 'tenant') {
    throw new Error('tenantRequest() used on a route without a tenant segment.');
  }
  return { tenantId: authentication.tenantId, account: authentication.account };
}

/** The tenant of a request authenticated on a tenant route, or null (platform and open routes). */
export function tenantOf(res: Response): string | null {
  const authentication = authenticationOf(res);
  return authentication?.kind === 'tenant' ? authentication.tenantId : null;
}

/** The signed-in person of a request on a platform route (`/tenants`); API keys never get here. */
export function signedInPerson(res: Response): Person {
  const authentication = authenticationOf(res);
  if (authentication?.kind !== 'person') throw new UnauthenticatedError();
  return authentication.person;
}

/**
 * Ends the request's turn in its tenant's fair share before its answer is sent (a refusal held
 * before it is answered: refusal-hold.ts). Set by the fair share's middleware; idempotent.
 */
export function setShareRelease(res: Response, release: () => void): void {
  res.locals['shareRelease'] = release;
}

/** Releases the request's turn in the fair share now, if it took one. */
export function releaseShare(res: Response): void {
  (res.locals['shareRelease'] as (() => void) | undefined)?.();
}
