import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, for suites and benchmarks that start
 * servers (or need an address that refuses connections). Another process may still take it before
 * the caller binds it; callers that start a server retry on EADDRINUSE.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
