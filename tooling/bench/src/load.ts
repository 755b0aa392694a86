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
  /** Headers of this request, besides the load's own. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly durationSeconds: number;
  readonly connections: number;
  /** Called for every request; returns its method, path and body. */
  readonly nextRequest: () => LoadRequest;
  /**
   * Requests the operation can make at most, warm-up included (a delete runs out of objects): the
   * measured run ends at the duration or once this many were sent, whichever comes first (those
   * already on their way, at most one per connection, are answered and counted).
   */
  readonly maxRequests?: number;
  /**
   * Seconds of the same load run first and not recorded (just-in-time compilation, caches), as
   * benchmarks of a JIT-compiled server do; its failures still count.
   */
  readonly warmupSeconds?: number;
  /** The CPU time the server process has used so far, in ms (for `cpuMsPerRequest`). */
  readonly serverCpuMs?: () => number;
  /** The bytes the server has handed to write calls so far (for `writtenBytesPerRequest`). */
  readonly serverWrittenBytes?: () => number;
}

export interface LoadFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Responses outside 2xx/3xx, and socket errors: a run with any of these is not a valid figure. */
  readonly failures: number;
  /**
   * The server's CPU time per completed request (user + system, ms), when `serverCpuMs` was given:
   * at a fixed number of connections on one event loop, the p50 latency is about the connections
   * times this, so it says what a latency target asks of a request.
   */
  readonly cpuMsPerRequest?: number;
  /** Bytes received per completed response (headers and body): what a request costs on the wire. */
  readonly bytesPerResponse?: number;
  /**
   * Bytes the server handed to write calls per completed request besides its answers (the bytes
   * the load generator received are taken off), when `serverWrittenBytes` was given: a write's
   * pages in the database's log and their checkpoint, plus any request log line.
   */
  readonly writtenBytesPerRequest?: number;
  /** The answers by kind: 2xx, 429 (refused: a fair share or a limit reached) and the rest. */
  readonly outcomes?: Outcomes;
}

/** Responses by kind; socket errors and timeouts count as `other`. */
export interface Outcomes {
  readonly ok: number;
  readonly refused: number;
  readonly other: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  let sent = 0;
  const load = (durationSeconds: number) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      // Assigned once autocannon returns; a request set up before (the first of each connection)
      // is never past the limit.
      let instance: autocannon.Instance | undefined = undefined;
      instance = autocannon(
        {
          url: options.baseUrl,
          connections: options.connections,
          duration: durationSeconds,
          headers: { 'content-type': 'application/json', ...options.headers },
          requests: [
            {
              setupRequest: (request) => {
                sent += 1;
                if (options.maxRequests !== undefined && sent >= options.maxRequests) instance?.stop();
                const next = options.nextRequest();
                return {
                  ...request,
                  method: next.method ?? 'GET',
                  path: next.path,
                  body: next.body,
                  headers: { ...request.headers, ...next.headers },
                };
              },
            },
          ],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
    });
  if (options.warmupSeconds !== undefined && options.warmupSeconds > 0) {
    const warmup = await load(options.warmupSeconds);
    if (warmup.non2xx + warmup.errors + warmup.timeouts > 0) {
      // A failure while warming up is a failure of the operation, not a figure to leave out.
      return {
        requestsPerSecond: 0,
        p50Ms: 0,
        p99Ms: 0,
        requests: 0,
        failures: warmup.non2xx + warmup.errors + warmup.timeouts,
      };
    }
  }
  const cpuBefore = options.serverCpuMs?.();
  const writtenBefore = options.serverWrittenBytes?.();
  const result = await load(options.durationSeconds);
  const cpuAfter = options.serverCpuMs?.();
  const writtenAfter = options.serverWrittenBytes?.();
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const written =
    writtenBefore === undefined || writtenAfter === undefined ? undefined : writtenAfter - writtenBefore;
  const refused = result.statusCodeStats?.['429']?.count ?? 0;
  return {
    ...(cpuMs !== undefined && result.requests.total > 0
      ? { cpuMsPerRequest: cpuMs / result.requests.total }
      : {}),
    ...(result.requests.total > 0
      ? { bytesPerResponse: result.throughput.total / result.requests.total }
      : {}),
    ...(written !== undefined && result.requests.total > 0
      ? { writtenBytesPerRequest: Math.max(0, written - result.throughput.total) / result.requests.total }
      : {}),
    outcomes: { ok: result['2xx'], refused, other: result.non2xx - refused + result.errors },
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
