/**
 * The system classes of `/system/{tenant}/...` (interface spec, System): usage records
 * (`serviceCallLogs`: list, aggregations, one record) and storing a secret value (`secretValues`).
 * The only routes that reach system classes: under `/data/...` they are unknown classes whatever
 * the credential (docs/access-control.md). The role check before routing admits only admins and
 * system keys here.
 */
import type { Request, Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

const USAGE = 'serviceCallLogs';

function queryOf(req: Request): URLSearchParams {
  return new URL(req.originalUrl, 'http://localhost').searchParams;
}

export function systemRoutes(deps: AppDeps): Router {
  const router = routeModule();
  const service = async (tenantId: string) => (await deps.runtimes.get(tenantId)).system();

  router.get(`/system/:tenant/${USAGE}`, async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    res.json(await (await service(tenantId)).list(account, { typeName: USAGE }, queryOf(req)));
  });
  router.get(`/system/:tenant/${USAGE}/aggregations`, async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    res.json(await (await service(tenantId)).aggregations(account, { typeName: USAGE }, queryOf(req)));
  });
  router.get(`/system/:tenant/${USAGE}/:id`, async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const result = await (await service(tenantId)).getOne(account, USAGE, String(req.params['id']));
    if ('redirect' in result) res.status(307).location(result.redirect).end();
    else res.json(result.object);
  });
  /** Stores `{name, secretValue}` encrypted; 201 with the new object's URI, never the value. */
  router.post('/system/:tenant/secretValues', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const href = await (await service(tenantId)).create(account, 'secretValues', req.body);
    res.status(201).location(href).end();
  });
  return router;
}
