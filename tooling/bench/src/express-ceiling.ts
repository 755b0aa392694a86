/**
 * Child process: the framework ceiling. The api's own express edge (security headers, request log,
 * CORS, API-key authentication against the platform registry, role check, JSON body parser, error
 * handler) in front of one route answering a fixed JSON body: everything but the data work.
 * Prints `CEILING_READY {"path", "key"}` when it accepts requests.
 */
import { Router } from 'express';
import { createApp, listen } from '@odp/api';
import { configOrExit, createTenant, openPlatformOrExit } from '@odp/platform';

const body = process.env.BENCH_BODY ?? '{}';
const config = configOrExit();
const platform = await openPlatformOrExit(config, '');
const { tenant, systemKey: key } = await createTenant(platform, { name: 'Framework ceiling' });
const path = `/data/${tenant.id}/ceiling`;
const fixed = Router().get(path, (_req, res) => {
  res.type('application/json').send(body);
});
const server = await listen(createApp(platform, [fixed]), config);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.stdout.write(`CEILING_READY ${JSON.stringify({ path, key })}\n`);
