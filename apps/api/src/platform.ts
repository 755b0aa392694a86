import http from 'node:http';
import type { Express } from 'express';
import { createTokenVerifier } from '@odp/auth';
import { openRedisCoordination, RedisUnreachableError } from '@odp/cache-redis';
import { ConfigError, loadConfig, platformDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import { createInProcessCoordination, sharedRegistry } from '@odp/core';
import type { Coordination, PlatformRegistry } from '@odp/core';
import { openPlatformStore } from '@odp/store-sqlite';
import type { AppDeps } from './app.js';
import { createLogger } from './log.js';
import { createTenantRuntimes } from './tenant-runtime.js';

/** The platform-wide services of one process, opened from configuration. */
export interface Platform extends AppDeps {
  readonly registry: PlatformRegistry;
  /** What this process shares with the other instances of the deployment. */
  readonly coordination: Coordination;
  /** Closes runtimes, the registry and the coordination. */
  close(): Promise<void>;
}

/**
 * Opens the platform's services. With `ODP_REDIS_URL` the instances of a deployment coordinate
 * through Redis: writes wake event streams on every instance, registry reads are cached under the
 * shared invalidation generation (see `sharedRegistry`), a tenant deleted or a model reloaded through
 * one instance is applied by the others, and a tenant's rebuild runs on one instance at a time.
 * Without it everything stays in this process. Throws ConfigError when Redis does not answer.
 */
export async function openPlatform(config: Config, examplesDir: string): Promise<Platform> {
  const log = createLogger();
  const coordination = await openCoordination(config);
  const store = openPlatformStore(platformDatabasePath(config));
  const registry = config.redisUrl === null ? store : sharedRegistry(store, coordination.invalidations);
  const runtimes = createTenantRuntimes({ config, registry, log, coordination });
  const stopListening = await coordination.invalidations.subscribe((message) => {
    runtimes
      .apply(message)
      .catch((error: unknown) =>
        log.error('applying an invalidation failed', { kind: message.kind, error: String(error) }),
      );
  });
  return {
    config,
    registry,
    coordination,
    runtimes,
    tokens: config.auth === null ? null : createTokenVerifier(config.auth),
    log,
    examplesDir,
    now: () => new Date(),
    async close() {
      await stopListening();
      await runtimes.closeAll();
      await registry.close();
      await coordination.close();
    },
  };
}

/**
 * The coordination the configuration names: Redis with `ODP_REDIS_URL` (ConfigError naming the
 * variable when it does not answer), otherwise in-process.
 */
export async function openCoordination(config: Pick<Config, 'redisUrl'>): Promise<Coordination> {
  if (config.redisUrl === null) return createInProcessCoordination();
  try {
    return await openRedisCoordination(config.redisUrl);
  } catch (error) {
    if (error instanceof RedisUnreachableError) throw new ConfigError('ODP_REDIS_URL', error.message);
    throw error;
  }
}

/**
 * `openPlatform` for a process entry point: an engine that does not answer ends the process like a
 * bad configuration value, with one line on stderr naming the variable (exit code 2).
 */
export async function openPlatformOrExit(config: Config, examplesDir: string): Promise<Platform> {
  try {
    return await openPlatform(config, examplesDir);
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error);
    throw error;
  }
}

function exitOnConfigError(error: ConfigError): never {
  process.stderr.write(`odp: configuration error: ${error.message}\n`);
  process.exit(2);
}

/**
 * Reads the configuration for a process entry point. A bad value ends the process with one line
 * on stderr naming the variable (exit code 2), never a stack trace.
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitOnConfigError(error);
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
