/**
 * HTTP load generation for one measured operation: a fixed duration at a fixed number of
 * connections, reporting throughput and latency percentiles. Request targets may vary per
 * request (e.g. a random object id) through `nextRequest`.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: string;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly durationSeconds: number;
  readonly connections: number;
  /** Called for every request; returns its method, path and body. */
  readonly nextRequest: () => LoadRequest;
}

export interface LoadFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Responses outside 2xx/3xx, and socket errors: a run with any of these is not a valid figure. */
  readonly failures: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: { 'content-type': 'application/json', ...options.headers },
    requests: [
      {
        setupRequest: (request) => {
          const next = options.nextRequest();
          return { ...request, method: next.method ?? 'GET', path: next.path, body: next.body };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
