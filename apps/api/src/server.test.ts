import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import express from 'express';
import { listen } from './server.js';

const TIMEOUTS = { headersTimeoutMs: 5000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5000 };

/**
 * The api's server builds each request and response with the app's prototypes: express's methods
 * and node's work on them as on the objects express re-prototypes, on a real socket.
 */
describe('listen', () => {
  let server: http.Server;
  let origin: string;
  const builtWithAppPrototypes = new WeakMap<object, boolean>();

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.get('/things/:id', (req, res) => {
      res.set('X-Seen', 'yes').json({
        id: req.params['id'],
        query: req.query,
        path: req.path,
        sameApp: req.app === app && res.app === app,
        requestBuiltAsApps: builtWithAppPrototypes.get(req),
      });
    });
    app.post('/things', (req, res) => {
      res
        .status(201)
        .location('/things/9')
        .json({ received: req.body as unknown });
    });
    server = await listen(app, { port: 0, http: TIMEOUTS });
    // Seen before express takes the request (and would set the prototypes itself).
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      builtWithAppPrototypes.set(
        req,
        Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
      );
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers through express with the request and response built with the app prototypes', async () => {
    const res = await fetch(`${origin}/things/7?colour=red`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      id: '7',
      query: { colour: 'red' },
      path: '/things/7',
      sameApp: true,
      requestBuiltAsApps: true,
    });
  });

  it('reads a JSON body and answers a status and a location', async () => {
    const res = await fetch(`${origin}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lamp' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/things/9');
    expect(await res.json()).toEqual({ received: { name: 'lamp' } });
  });

  it("answers a HEAD without a body and an unknown path with express's 404", async () => {
    const head = await fetch(`${origin}/things/7`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const missing = await fetch(`${origin}/nowhere`);
    expect(missing.status).toBe(404);
  });
});
