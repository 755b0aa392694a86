/**
 * Tenant B's client of the noisy-neighbour matrix (noisy-neighbour.ts): one request after the
 * other on one keep-alive connection, each timed to the microsecond (autocannon reports whole
 * milliseconds, and B's get one takes about one).
 *
 * It runs in a process of its own, with its own event loop: A's clients, in the benchmark's main
 * thread, read megabytes per second in some rows (replayed events, documents), and on a shared
 * event loop each of those reads would hold B's answer unread and be counted as the api's latency.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadFigures } from './load.js';

/** The argument that makes this module B's client when it is run as a process. */
const CHILD_FLAG = '--neighbour-client';

export interface NeighbourLoad {
  readonly baseUrl: string;
  readonly key: string;
  readonly durationSeconds: number;
  /** The paths to get, one taken at random for each request. */
  readonly paths: readonly string[];
}

/** What B's client measured in one phase: each request's latency (ms), and the failed ones. */
export interface NeighbourSample {
  readonly latencies: readonly number[];
  readonly failures: number;
  readonly seconds: number;
}

/** Runs B's client for `load.durationSeconds` in a process of its own; resolves what it measured. */
export function neighbourLoad(load: NeighbourLoad): Promise<NeighbourSample> {
  return new Promise((resolve, reject) => {
    // The benchmark runs under the TypeScript loader (tsx); the client's process asks for it too.
    const execArgv = import.meta.url.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { execArgv, stdio: 'inherit' });
    let figures: NeighbourSample | undefined;
    child.once('message', (message) => (figures = message as NeighbourSample));
    child.once('error', reject);
    child.once('spawn', () => child.send(load));
    child.once('exit', (code) =>
      figures === undefined
        ? reject(new Error(`B's client ended with ${code} and no figures.`))
        : resolve(figures),
    );
  });
}

/**
 * The figures of one or more phases' samples taken together: the latencies pooled, the rate over
 * the phases' summed duration.
 */
export function figuresOf(...samples: readonly NeighbourSample[]): LoadFigures {
  const latencies = samples.flatMap((sample) => sample.latencies).sort((x, y) => x - y);
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0);
  const at = (share: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0;
  return {
    requestsPerSecond: latencies.length / Math.max(seconds, 0.001),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requests: latencies.length,
    failures: samples.reduce((sum, sample) => sum + sample.failures, 0),
  };
}

async function sequentialLoad(load: NeighbourLoad): Promise<NeighbourSample> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + load.durationSeconds * 1000;
  try {
    while (performance.now() < end) {
      const path = load.paths[Math.floor(Math.random() * load.paths.length)] ?? '/';
      const started = performance.now();
      const status = await new Promise<number>((resolve) => {
        const request = http.get(
          `${load.baseUrl}${path}`,
          { agent, headers: { 'x-api-key': load.key } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        request.on('error', () => resolve(0));
      });
      latencies.push(performance.now() - started);
      if (status < 200 || status >= 400) failures += 1;
    }
  } finally {
    agent.destroy();
  }
  return { latencies, failures, seconds: load.durationSeconds };
}

if (process.argv.includes(CHILD_FLAG)) {
  process.once('message', (load: NeighbourLoad) => {
    void sequentialLoad(load).then((figures) => process.send?.(figures, () => process.exit(0)));
  });
}
