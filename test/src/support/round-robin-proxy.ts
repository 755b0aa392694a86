/**
 * A load balancer for the scale-out suites: an HTTP proxy on 127.0.0.1 that sends each request to
 * the next of its backends in turn, on a connection of its own (so two requests of one keep-alive
 * client reach two instances), and streams both ways (uploads, event streams). It counts what each
 * backend served, so a suite can show that both did.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`, the deployment's public address. */
  readonly url: string;
  /** The instances' addresses, taken in turn; set once they are started. */
  setBackends(urls: readonly string[]): void;
  /** Requests each backend answered, by its address. */
  served(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  let backends: URL[] = [];
  let next = 0;
  const served = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const backend = backends[next++ % Math.max(backends.length, 1)];
    if (backend === undefined) {
      response.writeHead(503).end('no backend');
      return;
    }
    const upstream = http.request(
      {
        host: backend.hostname,
        port: backend.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent: false,
      },
      (answer) => {
        served.set(backend.origin, (served.get(backend.origin) ?? 0) + 1);
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502).end('backend unreachable');
      else response.destroy();
    });
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setBackends: (urls) => {
      backends = urls.map((url) => new URL(url));
    },
    served: () => served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
