/**
 * `/system/{tenant}/...` (admin only, like the whole branch):
 *
 * - `POST /system/{tenant}/secretValues` with `{name, secretValue}`: stores the secret encrypted at
 *   rest (a new one: 201; replacing the value of an existing name: 200), body `{name}`. The value
 *   is never returned by any route, log, event or error; `systemSetting(name)` in gateway script
 *   parameters reads it (docs/worker.md).
 */
import { Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';

export function systemRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post('/system/:tenant/secretValues', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const { name, created } = await runtime.data().storeSecretValue(req.body);
    res.status(created ? 201 : 200).json({ name });
  });
  return router;
}
