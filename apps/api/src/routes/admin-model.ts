/**
 * The model part of the admin branch (interface spec, Admin API; docs/model-format.md, "Model status,
 * reload and upgrade"). The coarse role check (admin or system account) has run before these handlers.
 *
 * - `GET /admin/{tenant}/modelStatus`: the status of the latest model load.
 * - `POST /admin/{tenant}/reloadModel`: waits for the load; 200 with the status when it loaded, 422 (a
 *   problem body carrying the status members, `errors` among them) when it was refused.
 * - `GET /admin/{tenant}/modelUpgrade`: `application/zip` with the format-1 files converted and
 *   `UPGRADE-REPORT.md`; 422 when the repository cannot be read at all.
 * - `POST /admin/{tenant}/modelWebhook`: the push webhook; it carries no credential but an HMAC
 *   signature with the tenant's webhook secret (`modelWebhookRoutes`, mounted before body parsing).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import type { Response, Router } from 'express';
import JSZip from 'jszip';
import { AppError, isAppError, UnauthenticatedError } from '@odp/core';
import type { ModelStatus } from '@odp/model-loader';
import { UPGRADE_REPORT_FILE, upgradeModelRepository } from '@odp/model-loader';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';
import type { TenantRuntime } from '@odp/platform';
import { routeModule } from './router.js';

/** The signature header of the webhook, in GitHub's format: `sha256=<hex HMAC-SHA256 of the body>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-hub-signature-256';
/** Largest webhook body read (push payloads of large pushes stay well below this). */
const MAX_WEBHOOK_BODY = '5mb';

/** Answers a reload: 200 with the status when LOADED; otherwise 422 whose problem body carries the status. */
function sendReload(res: Response, status: ModelStatus): void {
  if (status.state === 'LOADED') {
    res.json(status);
    return;
  }
  throw new AppError(
    'MODEL_REFUSED',
    status.state === 'REFUSED'
      ? `The model was refused (${status.errors.length} error(s)); the previous model stays active.`
      : `The model was refused (${status.errors.length} error(s)) and there is no earlier model; the tenant is unavailable.`,
    [],
    { ...status },
  );
}

export function adminModelRoutes(deps: AppDeps): Router {
  const router = routeModule();
  const runtimeOf = async (res: Response): Promise<TenantRuntime> =>
    deps.runtimes.get(tenantRequest(res).tenantId);

  router.get('/admin/:tenant/modelStatus', async (_req, res) => {
    res.json((await runtimeOf(res)).model.status);
  });

  router.post('/admin/:tenant/reloadModel', async (_req, res) => {
    sendReload(res, await (await runtimeOf(res)).reloadModel());
  });

  router.get('/admin/:tenant/modelUpgrade', async (_req, res) => {
    const runtime = await runtimeOf(res);
    const unreadable = (message: string) =>
      new AppError('MODEL_REFUSED', message, [], {
        errors: [{ severity: 'ERROR', file: '', path: '', message }],
      });
    const source = runtime.tenant.modelSource;
    if (source === null) throw unreadable('The tenant has no model repository.');
    let upgrade;
    try {
      upgrade = await upgradeModelRepository(source, new Date(), deps.config.maxModelBytes);
    } catch (error) {
      if (isAppError(error)) throw unreadable(error.message);
      throw error;
    }
    const zip = new JSZip();
    for (const file of upgrade.files) zip.file(file.path, file.content);
    zip.file(UPGRADE_REPORT_FILE, upgrade.report);
    const body = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    res
      .status(200)
      .type('application/zip')
      .attachment(`model-upgrade-${runtime.tenant.id}.zip`)
      .setHeader('Cache-Control', 'no-store')
      .send(body);
  });

  return router;
}

/** Whether `signature` is `sha256=<hex>` of `body` under `secret` (constant-time comparison). */
export function validWebhookSignature(secret: string, body: Buffer, signature: string | undefined): boolean {
  if (signature === undefined || !signature.startsWith('sha256=')) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `POST /admin/{tenant}/modelWebhook`: a push to the model repository. Authenticated only by the
 * `X-Hub-Signature-256` header (HMAC-SHA256 of the raw body with the tenant's webhook secret, as GitHub,
 * Gitea and GitLab-compatible senders compute it); API keys and tokens are neither needed nor accepted
 * in its place. An unknown tenant and a wrong signature get the same 401. Then it reloads like
 * `reloadModel` (200 / 422). Mount before any body parser: the signature covers the raw bytes.
 */
export function modelWebhookRoutes(deps: AppDeps): Router {
  const router = routeModule();
  router.post(
    '/admin/:tenant/modelWebhook',
    express.raw({ type: () => true, limit: MAX_WEBHOOK_BODY }),
    async (req, res) => {
      const tenantId = req.params['tenant'] ?? '';
      const tenant = await deps.registry.getTenant(tenantId).catch(() => null);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = req.headers[WEBHOOK_SIGNATURE_HEADER];
      if (
        !tenant ||
        !validWebhookSignature(
          tenant.webhookSecret,
          body,
          typeof signature === 'string' ? signature : undefined,
        )
      ) {
        throw new UnauthenticatedError();
      }
      sendReload(res, await (await deps.runtimes.get(tenant.id)).reloadModel());
    },
  );
  return router;
}
