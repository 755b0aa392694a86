import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Authentication } from '@odp/auth';
import { FairShare } from '@odp/platform';
import { setAuthentication } from './context.js';
import { tenantFairShare } from './tenant-fair-share.js';

/**
 * The fair share at the edge, on a real HTTP server and a clock the route moves: what a request is
 * charged runs from its start to the moment its answer was handed to the socket.
 */
describe('tenantFairShare', () => {
  it("charges a request the write of its answer, which follows res.end (a manual clock: the write's time is set after end returns)", async () => {
    let clock = 0;
    const share = new FairShare({ tenantRequests: 8, tenantWorkMs: 1000, tenantConcurrency: 2 }, () => clock);
    const app = express();
    app.use((_req, res, next) => {
      setAuthentication(res, { kind: 'tenant', tenantId: 't1' } as Authentication);
      next();
    });
    app.use(tenantFairShare(share));
    app.get('/data/t1/notes', (_req, res) => {
      res.end('{"ok":true}');
      // The answer is ended; its bytes go to the socket after this (the write of the same turn).
      clock = 40;
    });
    const server = app.listen(0);
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/data/t1/notes`);
      expect(await res.text()).toBe('{"ok":true}');
      expect(share.debtOf('t1')).toBeGreaterThan(30);
    } finally {
      server.close();
    }
  });
});
