/**
 * The per-class jobs of the admin branch (docs/admin.md; packages/platform/src/class-jobs.ts), admin only
 * like all of `/admin`:
 *
 * - `POST /admin/{tenant}/{typeName}/recalculate` and `POST /admin/{tenant}/{typeName}/sync`: 202
 *   with the job status and `Location` of its progress; 404 for an unknown class, 409 while a job
 *   of the same kind runs for the tenant (on any instance), 503 without a usable model.
 * - `GET /admin/{tenant}/recalculate` and `GET /admin/{tenant}/sync`: the status of the tenant's
 *   current or last job of that kind (`typeName` names its class), kept by the instance running it.
 */
import type { Request, Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { CLASS_JOB_KINDS } from '@odp/platform';
import { routeModule } from './router.js';

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

export function adminClassJobRoutes(deps: AppDeps): Router {
  const router = routeModule();
  for (const kind of CLASS_JOB_KINDS) {
    router.post(`/admin/:tenant/:typeName/${kind}`, async (req, res) => {
      const { tenantId } = tenantRequest(res);
      const runtime = await deps.runtimes.get(tenantId);
      const typeName = param(req, 'typeName');
      const status = await runtime.startClassJob(kind, typeName, (error) =>
        deps.log.error(`class ${kind} failed`, { tenantId, typeName, error: String(error) }),
      );
      res.status(202).location(`/admin/${tenantId}/${kind}`).json(status);
    });
    router.get(`/admin/:tenant/${kind}`, async (_req, res) => {
      const { tenantId } = tenantRequest(res);
      res.json((await deps.runtimes.get(tenantId)).classJobs[kind].status());
    });
  }
  return router;
}
