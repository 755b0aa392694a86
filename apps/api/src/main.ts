/**
 * The api alone, for scale-out (`pnpm --filter @odp/api start`): serves requests against the
 * configured engines; creates no demo tenant and runs no background jobs.
 */
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { configOrExit, enginesOrExit, listen, openPlatform, shutdownOnSignal } from './platform.js';

const config = configOrExit();
const platform = openPlatform(config, fileURLToPath(new URL('../../../examples/models/', import.meta.url)));
await enginesOrExit(platform);
const server = await listen(createApp(platform), config.port);
shutdownOnSignal(server, platform);
process.stdout.write(`ODP api is running at ${config.baseUrl}\n`);
