import express from 'express';
import type { ErrorRequestHandler, Express, RequestHandler, Router } from 'express';
import { NoRouteError, RateLimitedError, TenantShareError } from '@odp/core';
import type { Logger, PlatformServices } from '@odp/platform';
import { authentication } from './authentication.js';
import { cors } from './cors.js';
import { jsonBody } from './json-body.js';
import { tenantFairShare } from './tenant-fair-share.js';
import { releaseShare } from './context.js';
import { RefusalHold } from './refusal-hold.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem.js';
import { routeModules } from './route-shapes.js';
import { tenantRoutes } from './routes/tenants.js';
import { invitationRoutes } from './routes/invitations.js';
import { dataRoutes } from './routes/data.js';
import { auditRoutes } from './routes/audit.js';
import { capabilitiesRoutes } from './routes/capabilities.js';
import { adminModelRoutes, modelWebhookRoutes } from './routes/admin-model.js';
import { metadataRoutes } from './routes/metadata.js';
import { searchRoutes } from './routes/search.js';
import { adminRebuildRoutes } from './routes/admin-rebuild.js';
import { healthRoutes } from './routes/health.js';
import { fileRoutes } from './routes/files.js';
import { excelRoutes } from './routes/excel.js';
import { adminJobRoutes } from './routes/admin-jobs.js';
import { scriptRoutes } from './routes/scripts.js';
import { systemRoutes } from './routes/system.js';
import { adminUiRoutes } from './routes/admin-ui.js';
import { adminClassJobRoutes } from './routes/admin-class-jobs.js';
import { adminTenantRoutes } from './routes/admin-tenant.js';
import { adminAccessRoutes } from './routes/admin-access.js';
import { reportRoutes } from './routes/reports.js';

/** Platform-wide services the routes are built from (`@odp/platform`'s `Platform` is one). */
export type AppDeps = PlatformServices;

/**
 * The HTTP edge: CORS -> authentication and role check -> the tenant's fair share (admission and
 * turns of every tenant request, before its body is read) -> JSON body (size, charset, nesting,
 * member and value limits: json-body.ts) -> route modules -> 404 ->
 * one error handler writing `application/problem+json`.
 * Route modules live in `routes/<name>.ts`, export `(deps: AppDeps) => Router` and declare full paths.
 * `routes` replaces the platform's route modules behind the same edge (the benchmark's framework
 * ceiling mounts one fixed-body route there).
 */
export function createApp(deps: AppDeps, routes: readonly RequestHandler[] = platformRoutes(deps)): Express {
  const app = express();
  // One routing truth: paths match case-sensitively everywhere (this app, every route module's
  // Router, route-shapes.ts and the authentication's `routeShape`), so `/DATA/...` is no route rather
  // than a data route that authentication took for a platform route.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.use(requestLog(deps.log));
  app.use(cors());
  app.use(
    authentication({
      registry: deps.registry,
      tokens: deps.tokens,
      now: deps.now,
      streamTokens: deps.streamTokens,
    }),
  );
  app.use(tenantFairShare(deps.fairShare));
  // The model push webhook signs the raw body, so it reads the body itself.
  app.use(routeModules([modelWebhookRoutes(deps)]));
  app.use(jsonBody(deps.config.jsonLimits));

  for (const router of routes) app.use(router);

  app.use((_req, _res, next) => next(new NoRouteError()));
  app.use(errorHandler(deps.log, new RefusalHold()));
  return app;
}

/**
 * The platform's route modules, in mount order (capabilities before the data branch, whose
 * `/{typeName}/{id}` routes would otherwise claim `/{typeName}/capabilities`), each seen only by
 * the requests of a shape its routes declare (route-shapes.ts).
 */
export function platformRoutes(deps: AppDeps): RequestHandler[] {
  return [routeModules(platformRouteModules(deps))];
}

function platformRouteModules(deps: AppDeps): Router[] {
  return [
    healthRoutes(deps),
    adminUiRoutes(deps),
    tenantRoutes(deps),
    invitationRoutes(deps),
    fileRoutes(deps),
    excelRoutes(deps),
    auditRoutes(deps),
    capabilitiesRoutes(deps),
    adminModelRoutes(deps),
    metadataRoutes(deps),
    adminRebuildRoutes(deps),
    adminJobRoutes(deps),
    adminClassJobRoutes(deps),
    adminAccessRoutes(deps),
    adminTenantRoutes(deps),
    reportRoutes(deps),
    scriptRoutes(deps),
    systemRoutes(deps),
    searchRoutes(deps),
    dataRoutes(deps),
  ];
}

/** One route the app registers: an upper-case method and the express path (`/data/:tenant/:typeName`). */
export interface RegisteredRoute {
  readonly method: string;
  readonly path: string;
}

/**
 * Every route `createApp` registers with the platform's route modules (the push webhook included),
 * read from the routers themselves, so the list cannot drift from what is served: the route
 * inventory the docs are checked against (docs/routes.md). A module's mounted middleware (the admin
 * page's static files, `express.static`, which answers GET and HEAD) counts as `GET` of its mount
 * path. Builds the modules afresh; nothing is served or opened.
 */
export function registeredRoutes(deps: AppDeps): RegisteredRoute[] {
  const routers = [modelWebhookRoutes(deps), ...platformRouteModules(deps)];
  const routes = new Map<string, RegisteredRoute>();
  for (const layer of routers.flatMap((router) => router.stack)) {
    if (layer.route === undefined) {
      // router 2 keeps a middleware's mount path in `rawPath` (its types do not declare it).
      const mountPath = (layer as { rawPath?: unknown }).rawPath;
      if (typeof mountPath === 'string') routes.set(`GET ${mountPath}`, { method: 'GET', path: mountPath });
      continue;
    }
    const { path, stack } = layer.route;
    for (const { method } of stack) {
      routes.set(`${method.toUpperCase()} ${path}`, { method: method.toUpperCase(), path });
    }
  }
  return [...routes.values()];
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** The path as logged: the signed token of a `/binaries/<token>` URL is a credential and is masked. */
function loggedPath(path: string): string {
  return path.startsWith('/binaries/') ? '/binaries/***' : path;
}

function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      log.info('request', {
        method: req.method,
        path: loggedPath(req.path),
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
      });
    });
    next();
  };
}

/** Answers an error as problem+json; a refusal of the tenant's share after its hold. */
function errorHandler(log: Logger, refusals: RefusalHold): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const problem = problemOf(error);
    if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    if (problem.status >= 500) {
      log.error('request failed', {
        method: req.method,
        path: loggedPath(req.path),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    const answer = () => res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
    if (error instanceof TenantShareError) {
      releaseShare(res);
      refusals.answer(res, answer);
    } else answer();
  };
}
