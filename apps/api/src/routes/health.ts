/**
 * Probes for load balancers and orchestrators, answered without a credential:
 *
 * - `GET /health`: liveness; 200 `{status: "ok"}` while the process serves HTTP.
 * - `GET /ready`: readiness; 200 when every engine the configuration names answers (the registry,
 *   the data directory, and the scale-out engines when configured), else 503 naming the engines that
 *   did not. Engine addresses and error details go to the log, never into the response.
 */
import type { Router } from 'express';
import type { AppDeps } from '../app.js';
import { routeModule } from './router.js';

/** A check that has not answered after this long counts as failed. */
const CHECK_TIMEOUT_MS = 2000;

function withTimeout(check: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

export function healthRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const checks = await Promise.all(
      deps.readiness.map(async ({ name, check }) => {
        try {
          await withTimeout(check());
          return { name, ready: true };
        } catch (error) {
          deps.log.error('readiness check failed', { engine: name, error: String(error) });
          return { name, ready: false };
        }
      }),
    );
    const ready = checks.every((check) => check.ready);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  return router;
}
