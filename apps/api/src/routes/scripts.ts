/**
 * `GET /scripts/{tenant}/{typeName}/{id}`, where an object's `_scripts` link leads: `{scripts: [name]}`,
 * the MANUAL scripts the object offers (404 for an object the caller cannot read, as Get one).
 *
 * `POST /scripts/{tenant}/{typeName}/{id}/{scriptName}` (model-format section 7, MANUAL scripts):
 * queues the object's CONSUMER_GATEWAY script with trigger MANUAL and answers 202 Accepted at once;
 * the call runs in the background (docs/worker.md). 404 for an unknown script or an object the caller
 * cannot read; 403 for the viewer role (the role check) and without record-level WRITE; 429 (with
 * `Retry-After`, nothing queued) when the external service of the script's gateway has reached its
 * rate limit (`ODP_RATE_LIMITS`).
 * Body: `{queued: true, job: {id, href}}`, or `{queued: false, reason}` when the script's condition
 * is false for the object (nothing is queued).
 */
import type { Router } from 'express';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import { routeModule } from './router.js';

export function scriptRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.get('/scripts/:tenant/:typeName/:id', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const { typeName = '', id = '' } = req.params;
    res.json({ scripts: await runtime.data().manualScripts(account, typeName, id) });
  });
  router.post('/scripts/:tenant/:typeName/:id/:scriptName', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const runtime = await deps.runtimes.get(tenantId);
    const { typeName = '', id = '', scriptName = '' } = req.params;
    const job = await runtime.data().runScript(account, typeName, id, scriptName);
    if (job === null) {
      res
        .status(202)
        .json({ queued: false, reason: 'The condition of the script is false for this object.' });
      return;
    }
    res.status(202).json({ queued: true, job: { id: job.id, href: `/admin/${tenantId}/jobs/${job.id}` } });
  });
  return router;
}
