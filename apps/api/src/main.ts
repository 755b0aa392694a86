/**
 * The api alone, for scale-out (`pnpm --filter @odp/api start`): serves requests against the
 * configured engines, on `ODP_API_PROCESSES` processes (api-processes.ts); creates no demo tenant.
 * Its one background job is the sweep of unclaimed uploads (docs/files.md); its writes queue the
 * jobs of scripts, which `apps/worker` runs.
 */
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { configOrExit } from '@odp/platform';
import { startApi } from './api-processes.js';
import { listen, shutdownOnSignal } from './server.js';

const config = configOrExit();
await startApi(config, fileURLToPath(new URL('../../../examples/models/', import.meta.url)), {
  async serve(platform) {
    shutdownOnSignal(await listen(createApp(platform), config), platform);
  },
  async startUp() {
    return (
      [
        `ODP api is running at ${config.baseUrl}`,
        `ODP_READY ${JSON.stringify({ baseUrl: config.baseUrl, tenantId: null, systemKey: null })}`,
      ].join('\n') + '\n'
    );
  },
});
