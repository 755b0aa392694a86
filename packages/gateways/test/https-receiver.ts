/**
 * A real HTTPS receiver on 127.0.0.1 for gateway tests: a self-signed certificate made by
 * `openssl` (subject alternative names 127.0.0.1 and localhost), every request recorded, statuses
 * answered from a script (`respondWith`), 200 otherwise. Its certificate is the `ca` to trust
 * (in-process `WebhookGateway` option, or `NODE_EXTRA_CA_CERTS=<caFile>` for a child process).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>` */
  readonly origin: string;
  /** The PEM certificate (its own CA). */
  readonly ca: string;
  readonly caFile: string;
  readonly requests: ReceivedRequest[];
  /**
   * Answers the next requests with these statuses (then 200); a `location` makes a redirect;
   * `'hang'` never answers (the connection stays open until `close`).
   */
  respondWith(...responses: Response[]): void;
  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

type Response = number | { status: number; location: string } | 'hang';

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-https-receiver-'));
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '1',
      '-subj',
      '/CN=odp-test-receiver',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  const ca = readFileSync(caFile, 'utf8');
  const requests: ReceivedRequest[] = [];
  const script: Response[] = [];
  const waiters: (() => void)[] = [];
  const server = https.createServer({ key: readFileSync(keyFile), cert: ca }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const next = script.shift() ?? 200;
      if (next === 'hang') {
        // No answer: the caller is left in the middle of its request.
      } else if (typeof next === 'number') res.writeHead(next).end('ok');
      else res.writeHead(next.status, { location: next.location }).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  // Every TCP connection, also those still in (or failed in) the TLS handshake, which the HTTP layer's
  // closeAllConnections() does not know: close() ends them all, so nothing outlives the receiver.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    origin: `https://127.0.0.1:${port}`,
    ca,
    caFile,
    requests,
    respondWith: (...responses) => script.push(...responses),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} requests, got ${requests.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.slice(0, count);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
