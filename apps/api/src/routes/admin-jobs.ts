/**
 * What happened in the background (docs/worker.md), admin only like all of `/admin`:
 *
 * - `GET /admin/{tenant}/jobs?object={id}&size={n}`: the tenant's jobs, newest first (default 50,
 *   at most 500), or only those of one object.
 * - `GET /admin/{tenant}/jobs/{jobId}`: one job; 404 when it is not a job of this tenant.
 *
 * A job shows its status, attempts, next run, last error and what fired it (gateway, script,
 * trigger, object href), never its resolved parameters: they may hold secret setting values.
 */
import { Router } from 'express';
import { NotFoundError, ValidationError } from '@odp/core';
import type { Job } from '@odp/core';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';

const DEFAULT_SIZE = 50;
const MAX_SIZE = 500;

function view(job: Job): Record<string, unknown> {
  const text = (name: string) => (typeof job.payload[name] === 'string' ? job.payload[name] : null);
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    attempts: job.attempts,
    runAt: job.runAt,
    lastError: job.lastError,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    gateway: text('gateway'),
    script: text('script'),
    trigger: text('trigger'),
    object: text('href'),
  };
}

function sizeOf(raw: unknown): number {
  if (raw === undefined) return DEFAULT_SIZE;
  const size = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || size < 1 || size > MAX_SIZE) {
    throw new ValidationError(`size must be an integer from 1 to ${MAX_SIZE}.`, [
      { field: 'size', message: `must be an integer from 1 to ${MAX_SIZE}` },
    ]);
  }
  return size;
}

export function adminJobRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/admin/:tenant/jobs', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const object = req.query['object'];
    const jobs = await deps.jobs.list({
      tenantId,
      limit: sizeOf(req.query['size']),
      ...(typeof object === 'string' && object !== '' ? { objectId: object.slice(-36).toLowerCase() } : {}),
    });
    res.json({ jobs: jobs.map(view) });
  });
  router.get('/admin/:tenant/jobs/:jobId', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const job = await deps.jobs.get(String(req.params['jobId']));
    if (job === null || job.tenantId !== tenantId) throw new NotFoundError('No such job.');
    res.json(view(job));
  });
  return router;
}
