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
        ...requestClassesOf(app),
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

/**
 * The server's request and response classes: node's own constructors, run on objects created with
 * the app's prototypes (`app.request`, `app.response`, whose chains lead to node's prototypes
 * through express's methods). Express gives every request and response those prototypes as it
 * takes them (`Object.setPrototypeOf`); an object built with node's prototype then moved to a new
 * hidden class, and node's HTTP code, express and every middleware read its properties through slow
 * lookups. An object created with the app's prototype keeps its class (setting the prototype it
 * already has changes nothing). Node's constructors are plain functions, called here on the object
 * `new` created: a class extending them, or `Reflect.construct` with another `new.target`, built
 * objects that cost more than before (server.test.ts fails at once should node make them classes).
 * Measured, CPU per request: a bare express app answering a fixed body 0.10-0.13 ms before,
 * 0.025-0.035 after (node's own server: 0.02-0.025); the api's edge in front of one fixed route
 * 0.29-0.53 ms before, 0.14-0.22 after (docs/performance/changes-2026-11.md).
 */
function requestClassesOf(app: Express): Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const NodeRequest = http.IncomingMessage as unknown as (this: unknown, ...args: unknown[]) => void;
  const NodeResponse = http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void;
  function AppRequest(this: unknown, ...args: unknown[]) {
    NodeRequest.apply(this, args);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: unknown, ...args: unknown[]) {
    NodeResponse.apply(this, args);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
  };
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
