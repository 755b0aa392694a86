import express from 'express';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { AppError, NotFoundError, ValidationError } from '@odp/core';
import type { JobQueue, PlatformRegistry } from '@odp/core';
import type { Config } from '@odp/config';
import type { TokenVerifier } from '@odp/auth';
import { authentication } from './authentication.js';
import { cors } from './cors.js';
import type { Logger } from './log.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem.js';
import type { TenantRuntimes } from './tenant-runtime.js';
import { tenantRoutes } from './routes/tenants.js';
import { dataRoutes } from './routes/data.js';
import { auditRoutes } from './routes/audit.js';
import { capabilitiesRoutes } from './routes/capabilities.js';
import { adminModelRoutes, modelWebhookRoutes } from './routes/admin-model.js';
import { metadataRoutes } from './routes/metadata.js';
import { searchRoutes } from './routes/search.js';
import { adminRebuildRoutes } from './routes/admin-rebuild.js';
import { adminJobRoutes } from './routes/admin-jobs.js';
import { scriptRoutes } from './routes/scripts.js';
import { systemRoutes } from './routes/system.js';

/**
 * Platform-wide services the routes are built from. Per-tenant components live in the
 * TenantRuntime (`deps.runtimes.get(tenantId)`), not here.
 */
export interface AppDeps {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly runtimes: TenantRuntimes;
  /** The background job queue (script gateway calls); its jobs are listed under `/admin/{t}/jobs`. */
  readonly jobs: JobQueue;
  /** null when no identity provider is configured (every access token is refused). */
  readonly tokens: TokenVerifier | null;
  readonly log: Logger;
  /** Directory of the bundled example models that `POST /tenants {model}` may name. */
  readonly examplesDir: string;
  /** The clock for credential expiry; tests and production use the wall clock. */
  readonly now: () => Date;
}

/** Largest accepted JSON body. Bigger bodies get 413 before they are parsed. */
export const MAX_JSON_BODY = '10mb';

/**
 * The HTTP edge: CORS -> authentication and role check -> JSON body -> route modules -> 404 ->
 * one error handler writing `application/problem+json`.
 * Route modules live in `routes/<name>.ts`, export `(deps: AppDeps) => Router` and declare full paths.
 * `routes` replaces the platform's route modules behind the same edge (the benchmark's framework
 * ceiling mounts one fixed-body route there).
 */
export function createApp(deps: AppDeps, routes: readonly RequestHandler[] = platformRoutes(deps)): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.use(requestLog(deps.log));
  app.use(cors());
  app.use(authentication({ registry: deps.registry, tokens: deps.tokens, now: deps.now }));
  // The model push webhook signs the raw body, so it reads the body itself.
  app.use(onBranches(['admin'], modelWebhookRoutes(deps)));
  app.use(express.json({ limit: MAX_JSON_BODY, type: ['application/json', 'application/*+json'] }));

  for (const router of routes) app.use(router);

  app.use((_req, _res, next) => next(new NotFoundError('No such route.')));
  app.use(errorHandler(deps.log));
  return app;
}

/**
 * The platform's route modules, in mount order (capabilities before the data branch, whose
 * `/{typeName}/{id}` routes would otherwise claim `/{typeName}/capabilities`), each behind the
 * first path segments its routes declare.
 */
export function platformRoutes(deps: AppDeps): RequestHandler[] {
  return [
    onBranches(['tenants'], tenantRoutes(deps)),
    onBranches(['audit', 'admin'], auditRoutes(deps)),
    onBranches(['data'], capabilitiesRoutes(deps)),
    onBranches(['admin'], adminModelRoutes(deps)),
    onBranches(['metadata'], metadataRoutes(deps)),
    onBranches(['admin'], adminRebuildRoutes(deps)),
    onBranches(['admin'], adminJobRoutes(deps)),
    onBranches(['scripts'], scriptRoutes(deps)),
    onBranches(['system'], systemRoutes(deps)),
    onBranches(['data'], searchRoutes(deps)),
    onBranches(['data'], dataRoutes(deps)),
  ];
}

/**
 * `handler` for requests whose first path segment is one of `branches` (compared ignoring case, as
 * express matches routes); other requests pass it by at once instead of being matched against each
 * of its routes, which was a tenth of a get-one request's CPU time.
 */
function onBranches(branches: readonly string[], handler: RequestHandler): RequestHandler {
  const names: ReadonlySet<string> = new Set(branches);
  return (req, res, next) => {
    const end = req.path.indexOf('/', 1);
    const branch = (end === -1 ? req.path.slice(1) : req.path.slice(1, end)).toLowerCase();
    if (names.has(branch)) return handler(req, res, next);
    next();
  };
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

/** Errors thrown by express's body parser, turned into the platform's own errors. */
function fromBodyParser(error: unknown): unknown {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  if (type === 'entity.too.large') {
    return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_JSON_BODY}.`);
  }
  if (type === 'entity.parse.failed') return new ValidationError('The request body is not valid JSON.');
  if (typeof type === 'string' && (type.startsWith('charset') || type.startsWith('encoding'))) {
    return new ValidationError('The request body has an unsupported encoding.');
  }
  return error;
}

function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const problem = problemOf(fromBodyParser(error));
    if (problem.status >= 500) {
      log.error('request failed', {
        method: req.method,
        path: loggedPath(req.path),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
  };
}
