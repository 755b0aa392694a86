/**
 * `/system/{tenant}/...` (admin only, like the whole branch; interface spec, Usage records):
 *
 * - `POST /system/{tenant}/secretValues` with `{name, secretValue}`: stores the secret encrypted at
 *   rest (a new one: 201; replacing the value of an existing name: 200), body `{name}`. The value
 *   is never returned by any route, log, event or error; `systemSetting(name)` in gateway script
 *   parameters reads it (docs/worker.md).
 * - `GET /system/{tenant}/serviceCallLogs`: a DataObjectPage of `system.serviceCallLog` with the
 *   filters, sort and paging of a data list; `/{id}` one record; `/aggregations` the aggregations
 *   of a data list, by default (no `sum`, `avg` or `count` asked) the sum of `costUnits` and
 *   `costLocal`. Links point under `/system/{tenant}/serviceCallLogs`.
 */
import { Router } from 'express';
import type { Request } from 'express';
import { NotFoundError } from '@odp/core';
import type { Account } from '@odp/core';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';

const USAGE = 'serviceCallLogs';

/** The query string as sent (never express's parsed objects), as the data routes read it. */
function queryOf(req: Request): URLSearchParams {
  return new URL(req.originalUrl, 'http://localhost').searchParams;
}

/** The body with the data-branch hrefs of usage records moved under `/system`. */
function relinked<T>(body: T, tenantId: string): T {
  return JSON.parse(
    JSON.stringify(body).split(`/data/${tenantId}/${USAGE}`).join(`/system/${tenantId}/${USAGE}`),
  ) as T;
}

export function systemRoutes(deps: AppDeps): Router {
  const router = Router();
  /** System classes are read through the tenant's system account; the role check admitted an admin. */
  const usage = async (tenantId: string) => {
    const data = (await deps.runtimes.get(tenantId)).data();
    const system: Account = { kind: 'system', tenantId };
    return { data, system };
  };

  router.post('/system/:tenant/secretValues', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const { name, created } = await runtime.data().storeSecretValue(req.body);
    res.status(created ? 201 : 200).json({ name });
  });

  router.get(`/system/:tenant/${USAGE}`, async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const { data, system } = await usage(tenantId);
    res.json(relinked(await data.list(system, { typeName: USAGE }, queryOf(req)), tenantId));
  });

  router.get(`/system/:tenant/${USAGE}/aggregations`, async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const { data, system } = await usage(tenantId);
    const query = queryOf(req);
    if (!query.has('sum') && !query.has('avg') && !query.has('count'))
      query.set('sum', 'costUnits,costLocal');
    res.json(await data.aggregations(system, { typeName: USAGE }, query));
  });

  router.get(`/system/:tenant/${USAGE}/:id`, async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const { data, system } = await usage(tenantId);
    const result = await data.getOne(system, USAGE, String(req.params['id']));
    if (!('object' in result)) throw new NotFoundError();
    res.json(relinked(result.object, tenantId));
  });
  return router;
}
