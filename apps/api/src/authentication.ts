import { NoRouteError, UnauthenticatedError } from '@odp/core';
import { assertRoleAllows, authenticate } from '@odp/auth';
import type {
  Authentication,
  AuthenticateDeps,
  CredentialHeaders,
  RouteScope,
  StreamTokens,
} from '@odp/auth';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { setAuthentication } from './context.js';

/** First path segments whose second segment is the tenant id. */
const TENANT_BRANCHES: ReadonlySet<string> = new Set([
  'data',
  'metadata',
  'system',
  'audit',
  'admin',
  'scripts',
  'assets',
  'tenants',
]);

/** First path segments of routes for a signed-in person rather than a tenant (routes/invitations.ts). */
const PERSON_BRANCHES: ReadonlySet<string> = new Set(['invitations']);

/**
 * Paths under these first segments need no credential header: `binaries` carries its own (a signed
 * token in the URL); `health` and `ready` are the probes of load balancers (routes/health.ts);
 * `admin-ui` is the admin web page's static files, which hold no data, and `/` redirects to it
 * (routes/admin-ui.ts).
 */
const OPEN_BRANCHES: ReadonlySet<string> = new Set(['binaries', 'health', 'ready', 'admin-ui', '']);
/** Routes that authenticate themselves: the model push webhook checks an HMAC signature (routes/admin-model.ts). */
const SELF_AUTHENTICATED = /^\/admin\/[^/]+\/modelWebhook\/?$/;

interface RouteShape {
  readonly branch: string;
  readonly scope: RouteScope;
}

/**
 * The branch and tenant scope of a path, read from the path alone (no data is consulted). Compared
 * case-sensitively, as every route matches (app.ts): `/DATA/...` is a platform path and no route.
 */
export function routeShape(path: string): RouteShape {
  const [branch = '', second] = path.split('/').slice(1);
  if (TENANT_BRANCHES.has(branch) && second !== undefined && second !== '') {
    return { branch, scope: { kind: 'tenant', tenantId: decodeSegment(second) } };
  }
  return { branch, scope: { kind: 'platform' } };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The value of a credential header, or undefined when absent. A header sent more than once
 * (which Node would otherwise join or silently drop) counts as more than one credential: 401.
 */
function credentialHeader(req: Request, name: string): string | undefined {
  const values = req.rawHeaders.filter(
    (_value, index, raw) => index % 2 === 1 && raw[index - 1]?.toLowerCase() === name,
  );
  if (values.length > 1) throw new UnauthenticatedError();
  return values[0];
}

/**
 * Authenticates every request except `/binaries/...` (OPTIONS preflights are answered earlier by
 * `cors()`), then applies the coarse role check, so both run before any route touches tenant data.
 */
export function authentication(deps: AuthenticateDeps & { streamTokens: StreamTokens }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const shape = routeShape(req.path);
    if (
      !TENANT_BRANCHES.has(shape.branch) &&
      !PERSON_BRANCHES.has(shape.branch) &&
      !OPEN_BRANCHES.has(shape.branch)
    ) {
      // A first segment the platform has no route under: no credential can make it one.
      next(new NoRouteError());
      return;
    }
    if (OPEN_BRANCHES.has(shape.branch) || (req.method === 'POST' && SELF_AUTHENTICATED.test(req.path))) {
      next();
      return;
    }
    const headers = {
      apiKey: credentialHeader(req, 'x-api-key'),
      authorization: credentialHeader(req, 'authorization'),
    };
    const streamToken = eventStreamToken(req, shape);
    const result =
      streamToken === null
        ? await authenticate(headers, shape.scope, deps)
        : await authenticateStreamToken(streamToken, headers, shape.scope, deps);
    if (result.kind === 'tenant') assertRoleAllows(result.account, req.method, shape.branch);
    setAuthentication(res, result);
    next();
  };
}

const EVENT_STREAM = /^\/data\/[^/]+\/eventStream\/?$/;

/** The `token` query parameter of a GET of a tenant's event stream (the only route it opens), or null. */
function eventStreamToken(req: Request, shape: RouteShape): string | null {
  if (req.method !== 'GET' || shape.scope.kind !== 'tenant' || !EVENT_STREAM.test(req.path)) return null;
  return new URL(req.originalUrl, 'http://localhost').searchParams.get('token');
}

/** A stream token is the request's one credential: with a credential header too, or invalid, 401. */
async function authenticateStreamToken(
  token: string,
  headers: CredentialHeaders,
  scope: RouteScope,
  deps: AuthenticateDeps & { streamTokens: StreamTokens },
): Promise<Authentication> {
  if (headers.apiKey !== undefined || headers.authorization !== undefined || scope.kind !== 'tenant') {
    throw new UnauthenticatedError();
  }
  const account = await deps.streamTokens.open(token, scope.tenantId, deps.registry, deps.now());
  if (account === null) throw new UnauthenticatedError();
  return { kind: 'tenant', tenantId: scope.tenantId, account };
}
