/**
 * `pnpm start`: the whole platform on the embedded defaults (the api and the background worker),
 * on `ODP_API_PROCESSES` processes (api-processes.ts; one per core by default), each serving the
 * api and running a background worker over the same data directory. On the first start with an
 * empty data directory it creates the demo tenant, loads its model's default data and prints its
 * id and a system key.
 * Prints one machine-readable line `ODP_READY {...}` when it accepts requests.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { ADMIN_UI_PATH } from './routes/admin-ui.js';
import { configOrExit, ensureDemoTenant, startWorker } from '@odp/platform';
import type { Platform } from '@odp/platform';
import { startApi } from './api-processes.js';
import { listen, shutdownOnSignal } from './server.js';

const examplesDir = fileURLToPath(new URL('../../../examples/models/', import.meta.url));
const config = configOrExit();

/**
 * The demo tenant (created, with its default data, on the first start) and what the operator is
 * told: where the api runs, the demo tenant and its key, and the `ODP_READY` line.
 */
async function startUp(platform: Platform): Promise<string> {
  const demo = await ensureDemoTenant(platform.registry, path.join(examplesDir, 'crm'));
  const processes = config.apiProcesses === 1 ? '' : `, ${config.apiProcesses} api processes`;
  const lines = [`ODP is running at ${config.baseUrl} (data in ${config.dataDir}${processes})`];
  if (demo.tenantId !== null) lines.push(`Demo tenant: ${demo.tenantId}`);
  const signIn = demo.tenantId === null ? '' : `#/sign-in?tenant=${demo.tenantId}`;
  lines.push(`Admin page: ${config.baseUrl}${ADMIN_UI_PATH}${signIn} (sign in with an API key)`);
  if (demo.tenantId !== null && demo.systemKey !== null) {
    const runtime = await platform.runtimes.get(demo.tenantId);
    const loaded = await runtime
      .data()
      .objects.jobs.loadDefaultData({ kind: 'system', tenantId: demo.tenantId });
    lines.push(`Loaded the demo model's default data: ${loaded.created} objects.`);
    lines.push(`System API key of the demo tenant (shown once, keep it): ${demo.systemKey}`);
  } else if (demo.tenantId !== null) {
    // A key is shown only when it is made; a later start says how to make another.
    lines.push(
      `API key: the one printed at the first start, or a new one: bin/odp key create --tenant ${demo.tenantId}`,
    );
  }
  lines.push(`ODP_READY ${JSON.stringify({ baseUrl: config.baseUrl, ...demo })}`);
  return lines.join('\n') + '\n';
}

await startApi(config, examplesDir, {
  async serve(platform) {
    const server = await listen(createApp(platform), config);
    shutdownOnSignal(server, platform, startWorker(platform));
  },
  startUp,
});
