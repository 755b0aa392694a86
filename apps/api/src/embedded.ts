/**
 * `pnpm start`: the whole platform on the embedded defaults (the api and the background worker).
 * On the first start with an empty data directory it creates the demo tenant, loads its model's
 * default data and prints its id and a system key.
 * Prints one machine-readable line `ODP_READY {...}` when it accepts requests.
 *
 * With `ODP_API_PROCESSES` > 1 (the default on a machine of several cores) this process does the
 * one-time start-up work (migrations, the demo tenant) and then runs the api processes
 * (api-processes.ts), each serving the api and a background worker over the same data directory.
 */
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { ADMIN_UI_PATH } from './routes/admin-ui.js';
import {
  configOrExit,
  createLogger,
  ensureDemoTenant,
  openPlatformOrExit,
  primaryChannel,
  startWorker,
} from '@odp/platform';
import type { Platform } from '@odp/platform';
import { runApiProcesses } from './api-processes.js';
import { listen, shutdownOnSignal } from './server.js';

const examplesDir = fileURLToPath(new URL('../../../examples/models/', import.meta.url));
const config = configOrExit();

/** The api and the background worker on `platform` in this process; resolves once it listens. */
async function serve(platform: Platform): Promise<void> {
  const server = await listen(createApp(platform), config);
  shutdownOnSignal(server, platform, startWorker(platform));
}

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

if (config.apiProcesses === 1) {
  const platform = await openPlatformOrExit(config, examplesDir);
  await serve(platform);
  process.stdout.write(await startUp(platform));
} else if (cluster.isPrimary) {
  // Opening the platform migrates the data files; the processes start on migrated files.
  const platform = await openPlatformOrExit(config, examplesDir);
  const ready = await startUp(platform);
  await platform.close();
  runApiProcesses({
    processes: config.apiProcesses,
    log: createLogger(),
    onReady: () => process.stdout.write(ready),
  });
} else {
  await serve(await openPlatformOrExit(config, examplesDir, { primary: primaryChannel() }));
}
