/**
 * The object data routes of `/data/{tenant}/...` (interface spec: List, Related list, Distinct,
 * Field values, Aggregations, Create, Create related, Get one, Get own, Patch, Delete, Merge,
 * loadDefaultData, eventStream) and the batch of writes. Get one answers an `ETag`; Patch, Delete
 * and Merge take `If-Match` (see `conditional.ts`); Create, Create related and the batch take
 * `Idempotency-Key` (see `idempotency.ts`). The handlers only translate HTTP to the tenant's
 * DataResources (the resource layer over its object service).
 * Paths that belong to other route modules (search, upload, download, excel, import, capabilities,
 * reports) are passed on untouched.
 */
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { DataResources, IdempotencyKeyUse, ListPath, WrittenResource } from '@odp/data';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import type { TenantRequest } from '../context.js';
import { assertBatchLimits } from './batch-limits.js';
import { booleanParam } from './boolean-param.js';
import { ifMatchOf, notModified } from './conditional.js';
import { eventStream } from './data-events.js';
import { idempotent, recordAnswerBody } from './idempotency.js';
import type { KeyedWriteContext } from './idempotency.js';
import { routeModule } from './router.js';
import { sendJsonInSlices, sendObjectJson } from '../sliced-json.js';
import { answerWrite, prefersRepresentation } from './write-answers.js';

/** First path segments after `/data/{tenant}/` that other route modules own. */
const FOREIGN_SEGMENTS: ReadonlySet<string> = new Set([
  'search',
  'upload',
  'download',
  'excel',
  'import',
  'eventStream',
  'loadDefaultData',
]);

/** Last segments that other route modules own under the data paths. */
const FOREIGN_TAILS: ReadonlySet<string> = new Set(['capabilities', 'reports']);

interface DataRequest extends TenantRequest {
  readonly data: DataResources;
  readonly query: URLSearchParams;
}

type DataHandler = (req: Request, res: Response, context: DataRequest) => Promise<void>;

/** The request's query string as sent (never express's parsed objects: `f[$ne]=` stays a plain name). */
export function queryOf(req: Request): URLSearchParams {
  return new URL(req.originalUrl, 'http://localhost').searchParams;
}

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

export function listPath(req: Request): ListPath {
  const relatedTypeName = param(req, 'relatedTypeName');
  return relatedTypeName
    ? {
        typeName: param(req, 'typeName'),
        related: { typeName: relatedTypeName, id: param(req, 'relatedId') },
      }
    : { typeName: param(req, 'typeName') };
}

export function dataRoutes(deps: AppDeps): Router {
  const router = routeModule();

  const handle =
    (handler: DataHandler): RequestHandler =>
    async (req: Request, res: Response, next: NextFunction) => {
      const names = [param(req, 'relatedTypeName'), param(req, 'typeName')];
      if (
        FOREIGN_SEGMENTS.has(names[0] || names[1] || '') ||
        FOREIGN_TAILS.has(param(req, 'id') || names[1] || '')
      ) {
        next();
        return;
      }
      const tenant = tenantRequest(res);
      const runtime = await deps.runtimes.get(tenant.tenantId);
      await handler(req, res, { ...tenant, data: runtime.data(), query: queryOf(req) });
    };

  tenantRoutes(router, deps);

  const distinct = handle(async (req, res, { account, data, query }) => {
    await sendJsonInSlices(req, res, await data.distinct(account, listPath(req), query));
  });
  const aggregations = handle(async (req, res, { account, data, query }) => {
    await sendObjectJson(req, res, await data.aggregations(account, listPath(req), query));
  });
  const values = handle(async (req, res, { account, data, query }) => {
    await sendJsonInSlices(
      req,
      res,
      await data.values(account, listPath(req), param(req, 'fieldName'), query),
    );
  });
  const list = handle(async (req, res, { account, data, query }) => {
    await sendJsonInSlices(req, res, await data.list(account, listPath(req), query));
  });

  router.get('/data/:tenant/:typeName/distinct', distinct);
  router.get('/data/:tenant/:typeName/aggregations', aggregations);
  router.get('/data/:tenant/:typeName/values/:fieldName', values);
  router.get(
    '/data/:tenant/:typeName/own',
    handle(async (req, res, { account, data }) => {
      await sendObjectJson(req, res, await data.getOwn(account, param(req, 'typeName')));
    }),
  );
  router.get('/data/:tenant/:typeName', list);
  router.post(
    '/data/:tenant/batch',
    handle(async (req, res, context) => {
      assertBatchLimits(req.body, deps.config.batch);
      await idempotent(req, res, keyedContext(deps, context), false, async (key) => {
        res.json(await context.data.batch(context.account, req.body, key));
      });
    }),
  );
  router.post(
    '/data/:tenant/:typeName',
    handle(
      createHandler(deps, (req, { account, data, query }, key) =>
        data.create(account, param(req, 'typeName'), req.body, query.get('class') ?? undefined, key),
      ),
    ),
  );
  router.get(
    '/data/:tenant/:typeName/:id',
    handle(async (req, res, { account, data }) => {
      const result = await data.getOne(account, param(req, 'typeName'), param(req, 'id'));
      if ('redirect' in result) res.status(307).location(result.redirect).end();
      else if (notModified(req, result.etag)) res.status(304).setHeader('ETag', result.etag).end();
      else await sendObjectJson(req, res.setHeader('ETag', result.etag), result.object);
    }),
  );
  router.patch(
    '/data/:tenant/:typeName/:id',
    handle(async (req, res, { account, data }) => {
      const id = param(req, 'id');
      const written = await data.patch(account, param(req, 'typeName'), id, req.body, ifMatchOf(req));
      await answerWrite(req, res, { account, data, written, status: 204, withBody: 200 });
    }),
  );
  router.delete(
    '/data/:tenant/:typeName/:id',
    handle(async (req, res, { account, data }) => {
      await data.remove(account, param(req, 'typeName'), param(req, 'id'), ifMatchOf(req));
      res.status(200).end();
    }),
  );
  router.post(
    '/data/:tenant/:typeName/:id/merge',
    handle(async (req, res, { account, data }) => {
      const id = param(req, 'id');
      const written = await data.merge(account, param(req, 'typeName'), id, req.body, ifMatchOf(req));
      await answerWrite(req, res, { account, data, written, status: 204, withBody: 200 });
    }),
  );

  const related = '/data/:tenant/:relatedTypeName/:relatedId/:typeName';
  router.get(`${related}/distinct`, distinct);
  router.get(`${related}/aggregations`, aggregations);
  router.get(`${related}/values/:fieldName`, values);
  router.get(related, list);
  router.post(
    related,
    handle(
      createHandler(deps, (req, { account, data, query }, key) => {
        const path = listPath(req) as Required<ListPath>;
        return data.createRelated(account, path, req.body, query.get('class') ?? undefined, key);
      }),
    ),
  );
  return router;
}

/** What a keyed write of this request needs (idempotency.ts). */
function keyedContext(deps: AppDeps, { account, data }: DataRequest): KeyedWriteContext {
  return { account, data, ttlSeconds: deps.config.idempotencyTtlSeconds, now: deps.now, log: deps.log };
}

/**
 * Create and Create related: `create` writes the object, answered 201 with its `Location` (and the
 * object, when asked for), under the request's `Idempotency-Key` when it has one.
 */
function createHandler(
  deps: AppDeps,
  create: (
    req: Request,
    context: DataRequest,
    key: IdempotencyKeyUse | undefined,
  ) => Promise<WrittenResource>,
): DataHandler {
  return async (req, res, context) => {
    const keyed = keyedContext(deps, context);
    await idempotent(req, res, keyed, prefersRepresentation(req), async (key) => {
      const { account, data } = context;
      const written = await create(req, context, key);
      const body = await answerWrite(req, res, { account, data, written, status: 201, withBody: 201 });
      await recordAnswerBody(keyed, key, body);
    });
  };
}

/**
 * The routes of the tenant as a whole under `/data/{tenant}`: the event stream, its token, and the
 * loading of the model's default data.
 */
function tenantRoutes(router: Router, deps: AppDeps): void {
  /**
   * A token that opens this tenant's event stream without a credential header, for `EventSource`
   * (docs/events.md): `{token, expiresAt, href}`, never cached. `?values=true` puts the stream's
   * option of the same name into `href` (the token itself does not carry it).
   */
  router.get('/data/:tenant/eventStream/token', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const values = booleanParam(req.query['values'], 'values');
    await deps.runtimes.get(tenantId);
    const { token, expiresAt } = deps.streamTokens.issue(account, deps.now());
    const href = `/data/${tenantId}/eventStream?token=${encodeURIComponent(token)}${values ? '&values=true' : ''}`;
    res.setHeader('Cache-Control', 'no-store').json({ token, expiresAt, href });
  });

  router.get('/data/:tenant/eventStream', async (req, res) => {
    const tenant = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenant.tenantId);
    await eventStream(req, res, {
      account: tenant.account,
      objects: runtime.data().objects,
      changes: runtime.changes,
      streams: runtime.eventStreams,
      turn: (work) => deps.fairShare.turn(tenant.tenantId, work),
    });
  });

  router.post('/data/:tenant/loadDefaultData', async (_req, res) => {
    const tenant = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenant.tenantId);
    res.json(await runtime.data().objects.jobs.loadDefaultData(tenant.account));
  });
}
