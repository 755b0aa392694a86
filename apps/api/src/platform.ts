import http from 'node:http';
import type { Express } from 'express';
import { createTokenVerifier } from '@odp/auth';
import { ConfigError, jobsDatabasePath, loadConfig, platformDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import { openJobQueue, openPlatformStore } from '@odp/store-sqlite';
import type { PlatformStore } from '@odp/store-sqlite';
import type { AppDeps } from './app.js';
import { createLogger } from './log.js';
import { createTenantRuntimes } from './tenant-runtime.js';

/** The platform-wide services of one process, opened from configuration. */
export interface Platform extends AppDeps {
  readonly registry: PlatformStore;
  /** Closes runtimes and the registry. */
  close(): Promise<void>;
}

export function openPlatform(config: Config, examplesDir: string): Platform {
  const log = createLogger();
  const registry = openPlatformStore(platformDatabasePath(config));
  const jobs = openJobQueue(jobsDatabasePath(config));
  const runtimes = createTenantRuntimes({ config, registry, log, jobs });
  return {
    config,
    registry,
    runtimes,
    jobs,
    tokens: config.auth === null ? null : createTokenVerifier(config.auth),
    log,
    examplesDir,
    now: () => new Date(),
    async close() {
      await runtimes.closeAll();
      await jobs.close();
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
export function shutdownOnSignal(
  server: http.Server,
  platform: Platform,
  /** Stopped before the platform closes (the in-process worker finishes its job in hand). */
  worker?: { stop(): Promise<void> },
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.log.info('shutting down', { signal });
    const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    cut.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await worker?.stop();
    await platform.close();
    platform.log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
