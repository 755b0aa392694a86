/**
 * The api alone, for scale-out (`pnpm --filter @odp/api start`): serves requests against the
 * configured engines; creates no demo tenant. Its one background job is the sweep of unclaimed
 * uploads (docs/files.md); its writes queue the jobs of scripts, which `apps/worker` runs.
 */
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { configOrExit, openPlatformOrExit } from '@odp/platform';
import { listen, shutdownOnSignal } from './server.js';

const config = configOrExit();
const platform = await openPlatformOrExit(
  config,
  fileURLToPath(new URL('../../../examples/models/', import.meta.url)),
);
const server = await listen(createApp(platform), config);
shutdownOnSignal(server, platform);
process.stdout.write(`ODP api is running at ${config.baseUrl}\n`);
process.stdout.write(
  `ODP_READY ${JSON.stringify({ baseUrl: config.baseUrl, tenantId: null, systemKey: null })}\n`,
);
