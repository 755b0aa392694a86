/**
 * The system classes of `/system/{tenant}/...` (admin only, like the whole branch; interface spec,
 * Usage records). The only routes that reach system classes: under `/data/...` they are unknown
 * classes whatever the credential (docs/access-control.md).
 *
 * - `POST /system/{tenant}/secretValues` with `{name, secretValue}`: stores the secret encrypted at
 *   rest (a new one: 201; replacing the value of an existing name: 200), body `{name}` and
 *   `Location` of the secret's object. The value
 *   is never returned by any route, log, event or error; `systemSetting(name)` in gateway script
 *   parameters reads it (docs/worker.md).
 * - `GET /system/{tenant}/{systemPlural}` (`serviceCallLogs`, `logEntries`, `systemSettings`,
 *   `secretValues`): a DataObjectPage with the filters, sort and paging of a data list; `/{id}` one
 *   object; `/aggregations` the aggregations of a data list (for `serviceCallLogs` by default, with
 *   no `sum`, `avg` or `count` asked, the sum of `costUnits` and `costLocal`, and always the
 *   deployment's `rateLimits` with their informational `budgetEur`). SECRET values are
 *   never rendered. Links point under `/system/{tenant}/...`.
 * - `POST /system/{tenant}/{systemPlural}`, `PATCH` and `DELETE /system/{tenant}/{systemPlural}/{id}`:
 *   the writes of the data API on system classes (settings that `systemSetting()` reads, records
 *   imported from elsewhere), with the same statuses (201 with `Location`, 204, 200).
 */
import type { Request, Router } from 'express';
import { NotFoundError } from '@odp/core';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

const USAGE = 'serviceCallLogs';
const SECRETS = 'secretValues';

/** The query string as sent (never express's parsed objects), as the data routes read it. */
function queryOf(req: Request): URLSearchParams {
  return new URL(req.originalUrl, 'http://localhost').searchParams;
}

/** The body with the data-branch hrefs of the system classes' objects moved under `/system`. */
function relinked<T>(body: T, tenantId: string, plurals: readonly string[]): T {
  let text = JSON.stringify(body);
  for (const plural of plurals) {
    text = text.split(`/data/${tenantId}/${plural}`).join(`/system/${tenantId}/${plural}`);
  }
  return JSON.parse(text) as T;
}

export function systemRoutes(deps: AppDeps): Router {
  const router = routeModule();
  /** The tenant's object service that reaches the system classes (and only them), with their plurals. */
  const service = async (tenantId: string) => {
    const runtime = await deps.runtimes.get(tenantId);
    const plurals = [...runtime.model.requireModel().classes.values()]
      .filter((cls) => cls.system)
      .map((cls) => cls.plural);
    return { system: runtime.system(), plurals };
  };
  const typeName = (req: Request) => String(req.params['typeName']);

  router.post(`/system/:tenant/${SECRETS}`, async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const { system, plurals } = await service(tenantId);
    const { name, created, href } = await system.storeSecretValue(req.body);
    res
      .status(created ? 201 : 200)
      .location(relinked(href, tenantId, plurals))
      .json({ name });
  });

  router.get('/system/:tenant/:typeName', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const { system, plurals } = await service(tenantId);
    const page = await system.list(account, { typeName: typeName(req) }, queryOf(req));
    res.json(relinked(page, tenantId, plurals));
  });

  router.get('/system/:tenant/:typeName/aggregations', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const query = queryOf(req);
    const unasked = !query.has('sum') && !query.has('avg') && !query.has('count');
    if (typeName(req) === USAGE && unasked) query.set('sum', 'costUnits,costLocal');
    const { system } = await service(tenantId);
    const aggregations = await system.aggregations(account, { typeName: typeName(req) }, query);
    res.json(
      typeName(req) === USAGE ? { ...aggregations, rateLimits: deps.config.rateLimits } : aggregations,
    );
  });

  router.get('/system/:tenant/:typeName/:id', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const { system, plurals } = await service(tenantId);
    const result = await system.getOne(account, typeName(req), String(req.params['id']));
    if (!('object' in result)) throw new NotFoundError();
    res.json(relinked(result.object, tenantId, plurals));
  });

  router.post('/system/:tenant/:typeName', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const { system, plurals } = await service(tenantId);
    const { href } = await system.create(account, typeName(req), req.body);
    res
      .status(201)
      .location(relinked(href, tenantId, plurals))
      .end();
  });

  router.patch('/system/:tenant/:typeName/:id', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const { system, plurals } = await service(tenantId);
    const { href } = await system.patch(account, typeName(req), String(req.params['id']), req.body);
    res
      .status(204)
      .location(relinked(href, tenantId, plurals))
      .end();
  });

  router.delete('/system/:tenant/:typeName/:id', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    await (await service(tenantId)).system.remove(account, typeName(req), String(req.params['id']));
    res.status(200).end();
  });
  return router;
}
