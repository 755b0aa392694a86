import type { AddressInfo } from 'node:net';
import http from 'node:http';
import express from 'express';
import { RefusalHold } from './refusal-hold.js';

/** A server whose every request is answered 429 through `hold`; resolves its origin and closer. */
async function refusingServer(hold: RefusalHold): Promise<{ origin: string; close: () => Promise<void> }> {
  const app = express();
  app.get('/', (_req, res) => hold.answer(res, () => res.status(429).send('refused')));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Milliseconds until the answer of GET `origin`, and its status. */
async function timed(origin: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(origin);
  await res.text();
  return { status: res.status, ms: performance.now() - started };
}

describe('RefusalHold', () => {
  it('answers a refusal after the hold', async () => {
    const server = await refusingServer(new RefusalHold(200, 10));
    try {
      const answer = await timed(server.origin);
      expect(answer.status).toBe(429);
      expect(answer.ms).toBeGreaterThanOrEqual(190);
    } finally {
      await server.close();
    }
  });

  it('answers at once past the answers it may hold, and holds again once they are answered', async () => {
    const server = await refusingServer(new RefusalHold(1000, 2));
    try {
      const held = [timed(server.origin), timed(server.origin)];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = await timed(server.origin);
      expect(third.status).toBe(429);
      expect(third.ms).toBeLessThan(700);
      for (const answer of await Promise.all(held)) expect(answer.ms).toBeGreaterThanOrEqual(990);
      expect((await timed(server.origin)).ms).toBeGreaterThanOrEqual(990);
    } finally {
      await server.close();
    }
  });

  it('frees the place of a client that went away before its answer', async () => {
    const server = await refusingServer(new RefusalHold(300, 1));
    try {
      const request = http.get(server.origin);
      request.on('error', () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      request.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await timed(server.origin)).ms).toBeGreaterThanOrEqual(290);
    } finally {
      await server.close();
    }
  });
});
