/**
 * The audit branch (interface spec, Audit API) and the access-control rebuild of the admin branch
 * (docs/search.md, Rebuild). The coarse role check (admin or system account) has run before these handlers.
 *
 * - `GET /audit/{tenant}/{typePluralName}/{id}/access`: the per-record report; the object must be
 *   readable by the caller exactly as Get one reads it (same 404; the admin role does not lift it).
 * - `GET /audit/{tenant}/access-control`: the definition resolution report, from the stored ACL.
 * - `POST /admin/{tenant}/rebuildAccessControl`: 202 with the job status; 409 while a rebuild runs
 *   (on any instance: the job holds the tenant's rebuild lease).
 * - `GET /admin/{tenant}/rebuild`: the status of the tenant's current or last rebuild job.
 */
import { NotFoundError } from '@odp/core';
import type { Request, Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

export function auditRoutes(deps: AppDeps): Router {
  const router = routeModule();

  router.get('/audit/:tenant/access-control', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    res.json(await (await deps.runtimes.get(tenantId)).accessControl().accessControlReport());
  });

  router.get('/audit/:tenant/:typePluralName/:id/access', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const id = param(req, 'id');
    const read = await runtime.data().getOne(account, param(req, 'typePluralName'), id);
    if ('redirect' in read) throw new NotFoundError();
    res.json(await runtime.accessControl().recordAccess(id.toLowerCase(), runtime.profiles));
  });

  router.post('/admin/:tenant/rebuildAccessControl', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const acl = runtime.accessControl();
    const status = await runtime.startExclusive(() =>
      acl.startRebuild(runtime.rebuilds, (error) =>
        deps.log.error('access-control rebuild failed', { tenantId, error: String(error) }),
      ),
    );
    res.status(202).location(`/admin/${tenantId}/rebuild`).json(status);
  });

  router.get('/admin/:tenant/rebuild', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    res.json((await deps.runtimes.get(tenantId)).rebuilds.status());
  });

  return router;
}
