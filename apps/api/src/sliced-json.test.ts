import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { sendJsonInSlices, sendObjectJson } from './sliced-json.js';

/**
 * The answer written in slices is the answer `res.json` gives (express, real HTTP): the same
 * bytes, Content-Type, Content-Length, weak ETag, 304 to a matching If-None-Match and HEAD, for a
 * small page and for one of many chunks (long strings, many objects).
 */
const small = { _embedded: { invoices: [{ amount: 1, note: 'naïve ✓' }] }, _links: { self: { href: '/x' } } };
const large = {
  _embedded: {
    notes: Array.from({ length: 300 }, (_, index) => ({
      index,
      body: `${index} \u{1F600} "quoted" naïve\n`.repeat(index % 50 === 0 ? 20_000 : 20),
    })),
  },
  _links: { self: { href: '/notes?size=300' } },
};
/** Objects as Get one answers them: ordinary, and holding a long string as a value or within one. */
const objects: Record<string, object> = {
  ordinary: { subject: 'short', _links: { _self: { href: '/n/1' } } },
  'long value': { body: 'b \u{1F600} naïve "q"\n'.repeat(40_000), _links: { _self: { href: '/n/2' } } },
  'long member': { history: { current: 'c'.repeat(300_000), history: [] }, tags: ['x', 'y'.repeat(70_000)] },
};

let server: Server;
let base: string;
beforeAll(async () => {
  const app = express();
  app.get('/sliced/:which', (req, res, next) => {
    sendJsonInSlices(req, res, req.params.which === 'large' ? large : small).catch(next);
  });
  app.get('/whole/:which', (req, res) => {
    res.json(req.params.which === 'large' ? large : small);
  });
  app.get('/object/:which', (req, res, next) => {
    res.setHeader('ETag', '"object"');
    sendObjectJson(req, res, objects[req.params.which] ?? {}).catch(next);
  });
  app.get('/object-whole/:which', (req, res) => {
    res.setHeader('ETag', '"object"').json(objects[req.params.which] ?? {});
  });
  app.get('/tagged', (req, res, next) => {
    res.setHeader('ETag', '"own"');
    sendJsonInSlices(req, res, small).catch(next);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('sendJsonInSlices', () => {
  it.each(['small', 'large'])(
    'answers a %s page with the bytes and headers res.json gives',
    async (which) => {
      const [sliced, whole] = await Promise.all([
        fetch(`${base}/sliced/${which}`),
        fetch(`${base}/whole/${which}`),
      ]);
      const body = Buffer.from(await sliced.arrayBuffer());
      expect(body.equals(Buffer.from(await whole.arrayBuffer()))).toBe(true);
      for (const header of ['content-type', 'content-length', 'etag']) {
        expect(sliced.headers.get(header)).toBe(whole.headers.get(header));
      }
      expect(Number(sliced.headers.get('content-length'))).toBe(body.length);
      const revalidated = await fetch(`${base}/sliced/${which}`, {
        // fetch adds `Cache-Control: no-cache` to a conditional request unless it has its own.
        headers: { 'if-none-match': sliced.headers.get('etag') ?? '', 'cache-control': 'max-age=0' },
      });
      expect(revalidated.status).toBe(304);
      expect(await revalidated.text()).toBe('');
      const [head, wholeHead] = await Promise.all([
        fetch(`${base}/sliced/${which}`, { method: 'HEAD' }),
        fetch(`${base}/whole/${which}`, { method: 'HEAD' }),
      ]);
      expect(head.status).toBe(200);
      for (const header of ['content-type', 'content-length', 'etag']) {
        expect(head.headers.get(header)).toBe(wholeHead.headers.get(header));
      }
      expect(await head.text()).toBe('');
    },
  );

  it('keeps an ETag the route set', async () => {
    const answer = await fetch(`${base}/tagged`);
    expect(answer.headers.get('etag')).toBe('"own"');
    expect(await answer.json()).toEqual(small);
  });

  it.each(Object.keys(objects))(
    'answers an object (%s) with the bytes and headers res.json gives',
    async (which) => {
      const [answer, whole] = await Promise.all([
        fetch(`${base}/object/${encodeURIComponent(which)}`),
        fetch(`${base}/object-whole/${encodeURIComponent(which)}`),
      ]);
      expect(Buffer.from(await answer.arrayBuffer()).equals(Buffer.from(await whole.arrayBuffer()))).toBe(
        true,
      );
      for (const header of ['content-type', 'content-length', 'etag']) {
        expect(answer.headers.get(header)).toBe(whole.headers.get(header));
      }
    },
  );
});
