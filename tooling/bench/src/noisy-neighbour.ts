/**
 * The two-tenant case (docs/performance.md, "Noisy neighbour"): tenant B's get-one latency alone,
 * then while tenant A floods the api with `size=1000` lists on every connection. The target is B's
 * p50 under the flood within 3x of B alone. A's refused lists (429, its fair share exceeded) are
 * the expected answer to a flood, so A's figures are reported in the description, not as a row
 * whose non-2xx responses would invalidate the run.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { runLoad } from './load.js';
import type { LoadFigures } from './load.js';
import type { OperationResult } from './report.js';

export interface Tenant {
  readonly tenantId: string;
  readonly key: string;
}

export interface NoisyNeighbourOptions {
  readonly baseUrl: string;
  /** The flooding tenant. */
  readonly a: Tenant;
  /** The neighbour, with the ids of its invoices. */
  readonly b: Tenant & { readonly invoiceId: (index: number) => string; readonly invoices: number };
  readonly objects: number;
  readonly durationSeconds: number;
  /** A's connections; B measures on one (its latency, not its throughput). */
  readonly connections: number;
}

/** Within this factor of B's p50 alone. */
const TARGET_RATIO = 3;

/**
 * B's client: one request after the other on one keep-alive connection for `durationSeconds`, each
 * timed to the microsecond (autocannon reports whole milliseconds, and B's get one takes about one).
 */
async function sequentialLoad(
  baseUrl: string,
  key: string,
  durationSeconds: number,
  nextPath: () => string,
): Promise<LoadFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + durationSeconds * 1000;
  try {
    while (performance.now() < end) {
      const started = performance.now();
      const status = await new Promise<number>((resolve) => {
        const request = http.get(
          `${baseUrl}${nextPath()}`,
          { agent, headers: { 'x-api-key': key } },
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
  latencies.sort((x, y) => x - y);
  const at = (share: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0;
  return {
    requestsPerSecond: latencies.length / durationSeconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requests: latencies.length,
    failures,
  };
}

export async function measureNoisyNeighbour(options: NoisyNeighbourOptions): Promise<OperationResult[]> {
  const { a, b, baseUrl, durationSeconds } = options;
  const getOneOfB = () =>
    `/data/${b.tenantId}/invoices/${b.invoiceId(Math.floor(Math.random() * b.invoices))}`;
  const neighbour = () => sequentialLoad(baseUrl, b.key, durationSeconds, getOneOfB);
  const alone = await neighbour();
  const [flood, underFlood] = await Promise.all([
    runLoad({
      baseUrl,
      headers: { 'x-api-key': a.key },
      durationSeconds,
      connections: options.connections,
      nextRequest: () => ({ path: `/data/${a.tenantId}/invoices?size=1000` }),
    }),
    neighbour(),
  ]);
  const ratio = underFlood.p50Ms / Math.max(alone.p50Ms, 0.001);
  const served = flood.requests - flood.failures;
  const perSecond = (count: number) => Math.round(count / durationSeconds);
  return [
    { name: 'tenant B get one, alone (one request at a time)', objects: options.objects, http: alone },
    {
      name:
        `tenant B get one while tenant A floods size=1000 lists on ${options.connections} connections ` +
        `(A: ${perSecond(served)}/s served, ${perSecond(flood.failures)}/s refused with 429)`,
      objects: options.objects,
      http: underFlood,
      target: {
        description:
          `B's p50 within ${TARGET_RATIO}x of B alone: ${underFlood.p50Ms.toFixed(2)} ms / ` +
          `${alone.p50Ms.toFixed(2)} ms = ${ratio.toFixed(2)}x`,
        met: underFlood.requests > 0 && alone.requests > 0 && ratio <= TARGET_RATIO,
      },
    },
  ];
}
