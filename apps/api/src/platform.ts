import http from 'node:http';
import type { Express } from 'express';
import { createTokenVerifier } from '@odp/auth';
import { ConfigError, loadConfig, platformDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import { openPlatformStore } from '@odp/store-sqlite';
import type { PlatformStore } from '@odp/store-sqlite';
import type { AppDeps } from './app.js';
import { createLogger } from './log.js';
import { openSearchEngine } from './search-engine.js';
import type { SearchEngine } from './search-engine.js';
import { createTenantRuntimes } from './tenant-runtime.js';

/** The platform-wide services of one process, opened from configuration. */
export interface Platform extends AppDeps {
  readonly registry: PlatformStore;
  readonly search: SearchEngine;
  /** Closes runtimes, the search engine connection and the registry. */
  close(): Promise<void>;
}

export function openPlatform(config: Config, examplesDir: string): Platform {
  const log = createLogger();
  const registry = openPlatformStore(platformDatabasePath(config));
  const search = openSearchEngine(config, log);
  const runtimes = createTenantRuntimes({ config, registry, log, search });
  return {
    config,
    registry,
    search,
    runtimes,
    tokens: config.auth === null ? null : createTokenVerifier(config.auth),
    log,
    examplesDir,
    now: () => new Date(),
    async close() {
      await runtimes.closeAll();
      await search.close();
      await registry.close();
    },
  };
}

/**
 * Reads the configuration for a process entry point. A bad value ends the process with one line
 * on stderr naming the variable (exit code 2), never a stack trace.
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`odp: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * Waits until the configured external engines answer. One that does not ends the process with one
 * line on stderr naming it (exit code 1): an api that cannot search must not start serving.
 */
export async function enginesOrExit(platform: Platform): Promise<void> {
  try {
    await platform.search.verify();
  } catch (error) {
    process.stderr.write(`odp: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    await platform.close().catch(() => undefined);
    process.exit(1);
  }
}

/** Starts the HTTP server. A port already in use ends the process like a bad PORT value (exit code 2). */
export function listen(app: Express, port: number): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(app);
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') {
        reject(error);
        return;
      }
      process.stderr.write(`odp: configuration error: PORT: ${port} is already in use\n`);
      process.exit(2);
    });
    server.listen(port, () => resolve(server));
  });
}

/** Connections still open this long after a shutdown signal (streams, slow clients) are cut. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * On SIGTERM or SIGINT: stop accepting connections, let running requests finish (up to the grace
 * period), close the platform, exit 0.
 */
export function shutdownOnSignal(server: http.Server, platform: Platform): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.log.info('shutting down', { signal });
    const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    cut.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await platform.close();
    platform.log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
