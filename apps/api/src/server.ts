/**
 * The api process's HTTP server: listening with the configured timeouts, and the graceful
 * shutdown on SIGTERM or SIGINT.
 */
import http from 'node:http';
import type { Express } from 'express';
import type { Config } from '@odp/config';
import type { Platform } from '@odp/platform';

/**
 * Starts the HTTP server on `config.port` with the configured timeouts: a client that does not send
 * its headers within `headersTimeoutMs`, or its whole request within `requestTimeoutMs`, gets 408
 * and a closed connection; an idle keep-alive connection closes after `keepAliveTimeoutMs`. Node
 * checks the first two on an interval, here a quarter of the header timeout (at most 1 s), so a
 * connection is cut soon after its deadline. A port already in use ends the process like a bad
 * PORT value (exit code 2).
 */
export function listen(app: Express, config: Pick<Config, 'port' | 'http'>): Promise<http.Server> {
  const { port, http: timeouts } = config;
  return new Promise((resolve, reject) => {
    const server = http.createServer(
      {
        headersTimeout: timeouts.headersTimeoutMs,
        requestTimeout: timeouts.requestTimeoutMs,
        keepAliveTimeout: timeouts.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 4))),
      },
      app,
    );
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
export const SHUTDOWN_GRACE_MS = 5000;

/**
 * On SIGTERM or SIGINT: stop the running imports (each is recorded `interrupted` after its current
 * row, not left to run while connections drain), stop accepting connections, let running requests
 * finish (up to the grace period), close the platform, exit 0.
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
    const importsStopped = platform.imports.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await importsStopped;
    await worker?.stop();
    await platform.close();
    platform.log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
