/**
 * The api on every core (`ODP_API_PROCESSES` > 1, docs/architecture.md "Api processes"): the
 * process that was started becomes the primary, which does the one-time start-up work, then forks
 * the api processes (`node:cluster`: they share the listening port, the primary hands each new
 * connection to the next process in turn) and relays their coordination (`ClusterHub`). It serves
 * no request itself. A process that ends is replaced; SIGTERM or SIGINT stops every process
 * gracefully, then the primary. With `ODP_API_PROCESSES=1` the process that was started serves.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { leasesDatabasePath } from '@odp/config';
import type { Config } from '@odp/config';
import type { LockService } from '@odp/core';
import { SqliteLocks } from '@odp/store-sqlite';
import { ClusterHub, createLogger, openPlatformOrExit, primaryChannel } from '@odp/platform';
import type { ClusterMember, Logger, Platform } from '@odp/platform';
import { SHUTDOWN_GRACE_MS } from './server.js';

export interface ApiEntry {
  /** Serves the api (and what else each serving process runs) on `platform`; resolves once it listens. */
  serve(platform: Platform): Promise<void>;
  /**
   * The one-time work of a start (the demo tenant): with one process once it listens, with several
   * while they start. Resolves what the operator is told, ending with the `ODP_READY` line, which
   * is printed once every process listens.
   */
  startUp(platform: Platform): Promise<string>;
}

/** Starts the api of an entry point on `config.apiProcesses` processes. */
export async function startApi(config: Config, examplesDir: string, entry: ApiEntry): Promise<void> {
  if (config.apiProcesses === 1) {
    const platform = await openPlatformOrExit(config, examplesDir);
    await entry.serve(platform);
    process.stdout.write(await entry.startUp(platform));
  } else if (cluster.isPrimary) {
    // Opening the platform migrates the data files and checks the engines and the secret key once,
    // with one line on a bad configuration; the processes then start while the start-up work runs.
    const platform = await openPlatformOrExit(config, examplesDir);
    const listening = runApiProcesses({
      processes: config.apiProcesses,
      // With Redis the processes take their leases there, not through the primary.
      locks: config.redisUrl === null ? new SqliteLocks(leasesDatabasePath(config)) : undefined,
      log: createLogger(),
    });
    const ready = await entry.startUp(platform);
    await platform.close();
    await listening;
    process.stdout.write(ready);
  } else {
    await entry.serve(await openPlatformOrExit(config, examplesDir, { primary: primaryChannel() }));
  }
}

/** A process that ended sooner than this after its start is replaced after a pause, not at once. */
const SHORT_LIFE_MS = 10_000;
const RESTART_PAUSE_MS = 1000;

interface ApiProcessesOptions {
  /** How many api processes to keep running. */
  readonly processes: number;
  /** The machine's leases, which the primary takes for its processes (none with Redis). */
  readonly locks: LockService | undefined;
  readonly log: Logger;
}

/**
 * Forks and keeps `processes` api processes; resolves once every one listens. One that ends before
 * then ends the primary with its exit code (a port in use is a configuration error, 2): a start
 * that cannot succeed is not retried for ever.
 */
function runApiProcesses(options: ApiProcessesOptions): Promise<void> {
  const { processes, locks, log } = options;
  let allListen = () => {};
  const allListening = new Promise<void>((resolve) => (allListen = resolve));
  const hub = new ClusterHub(locks);
  let ready = false;
  let listening = 0;
  let stopping = false;

  const fork = () => {
    const startedAt = Date.now();
    const worker = cluster.fork();
    const member: ClusterMember = {
      send: (message) => {
        if (worker.isConnected()) worker.send(message);
      },
    };
    hub.join(member);
    worker.on('message', (message: unknown) => hub.receive(member, message));
    worker.once('listening', () => {
      listening += 1;
      if (ready || listening < processes) return;
      ready = true;
      allListen();
    });
    worker.once('exit', (code, signal) => {
      hub.leave(member);
      if (stopping) return exitWhenAllEnded();
      if (!ready) return abort(worker, code);
      log.error('api process ended; starting another', { pid: worker.process.pid, code, signal });
      setTimeout(fork, Date.now() - startedAt < SHORT_LIFE_MS ? RESTART_PAUSE_MS : 0).unref();
    });
  };

  const living = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const exitWhenAllEnded = () => {
    if (living().some((w) => !w.isDead())) return;
    log.flush();
    process.exit(0);
  };
  const abort = (ended: Worker, code: number | null) => {
    stopping = true;
    for (const worker of living()) worker.process.kill('SIGKILL');
    log.error('api process ended during the start', { pid: ended.process.pid, code });
    log.flush();
    process.exit(code === null || code === 0 ? 1 : code);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal, processes: living().length });
    for (const worker of living()) worker.process.kill('SIGTERM');
    // Each process cuts its connections after the grace period; one that hangs past it is ended.
    setTimeout(() => living().forEach((w) => w.process.kill('SIGKILL')), SHUTDOWN_GRACE_MS + 5000).unref();
    exitWhenAllEnded();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let i = 0; i < processes; i++) fork();
  return allListening;
}
