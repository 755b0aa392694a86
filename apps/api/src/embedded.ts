/**
 * `pnpm start`: the whole platform in one process on the embedded defaults (the api and the
 * background worker). On the first start
 * with an empty data directory it creates the demo tenant, loads its model's default data and
 * prints its id and a system key.
 * Prints one machine-readable line `ODP_READY {...}` when it accepts requests.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { ADMIN_UI_PATH } from './routes/admin-ui.js';
import { configOrExit, ensureDemoTenant, openPlatformOrExit, startWorker } from '@odp/platform';
import { listen, shutdownOnSignal } from './server.js';

const examplesDir = fileURLToPath(new URL('../../../examples/models/', import.meta.url));
const config = configOrExit();
const platform = await openPlatformOrExit(config, examplesDir);
const server = await listen(createApp(platform), config);
const demo = await ensureDemoTenant(platform.registry, path.join(examplesDir, 'crm'));
const worker = startWorker(platform);
shutdownOnSignal(server, platform, worker);

const lines = [`ODP is running at ${config.baseUrl} (data in ${config.dataDir})`];
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
process.stdout.write(lines.join('\n') + '\n');
