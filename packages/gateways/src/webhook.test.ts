import { AddressPolicy } from './address-policy.js';
import type { Resolver } from './address-policy.js';
import { GatewayError } from './gateway.js';
import { nextAttemptAt } from './retry.js';
import { WebhookGateway, webhookRequest, webhookSignature } from './webhook.js';
import { startHttpsReceiver } from '../test/index.js';
import type { HttpsReceiver } from '../test/index.js';

const SECRET = 'tenant-webhook-secret';
const NOW = new Date('2030-05-01T12:00:00.000Z');

describe('address policy', () => {
  const refused = [
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::808:808',
    '::ffff:0:7f00:1',
    // 6to4 (2002::/16) with a loopback, a private and a public IPv4 inside: the relay's egress is unknown.
    '2002:7f00:1::1',
    '2002:a00:1::1',
    '2002:808:808::1',
    // Teredo (2001::/32), and the rest of the IETF protocol assignments (2001::/23).
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:0:7f00:1::1',
    '2001:2::1',
    '2001:10::1',
    '3fff::1',
  ];
  const policy = new AddressPolicy();

  it.each(refused)('refuses %s', (address) => {
    expect(policy.allowsAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '172.32.0.1'])(
    'allows the public address %s',
    (address) => {
      expect(policy.allowsAddress(address)).toBe(true);
    },
  );

  it('refuses a name when any resolved address is private, and pins the first address otherwise', async () => {
    const dns: Record<string, string[]> = {
      'mixed.test': ['93.184.216.34', '10.0.0.5'],
      'public.test': ['93.184.216.34', '93.184.216.35'],
      'mapped.test': ['::ffff:192.168.0.1'],
      'sixto4.test': ['93.184.216.34', '2002:a00:1::1'],
    };
    const resolver: Resolver = async (host) =>
      (dns[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const named = new AddressPolicy([], resolver);
    await expect(named.pin('mixed.test')).rejects.toThrow('10.0.0.5');
    await expect(named.pin('mapped.test')).rejects.toThrow('::ffff:192.168.0.1');
    await expect(named.pin('sixto4.test')).rejects.toThrow('2002:a00:1::1');
    await expect(named.pin('nothing.test')).rejects.toThrow('does not resolve');
    await expect(named.pin('public.test')).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(named.pin('[::1]')).rejects.toThrow('::1');
  });

  it('allows what the configured allow-list names: CIDRs and host names', async () => {
    const resolver: Resolver = async () => [{ address: '10.9.9.9', family: 4 }];
    const allowed = new AddressPolicy(['127.0.0.1/32', 'intranet.test', 'fd00::/8'], resolver);
    expect(allowed.allowsAddress('127.0.0.1')).toBe(true);
    expect(allowed.allowsAddress('127.0.0.2')).toBe(false);
    expect(allowed.allowsAddress('fd00::5')).toBe(true);
    await expect(allowed.pin('intranet.test')).resolves.toEqual({ address: '10.9.9.9', family: 4 });
    await expect(allowed.pin('other.test')).rejects.toThrow('10.9.9.9');
  });
});

describe('webhook request', () => {
  it('puts payload_ parameters in a JSON body for POST and in the query for GET', () => {
    const post = webhookRequest({
      url: 'https://hooks.test/in?x=1',
      payload_invoice: '/data/t/invoices/1',
      payload_note: null,
      'header.X-Source': 'odp',
    });
    expect(post).toMatchObject({ method: 'POST', body: '{"invoice":"/data/t/invoices/1","note":null}' });
    expect(post.headers).toEqual({ 'X-Source': 'odp', 'Content-Type': 'application/json' });
    const get = webhookRequest({
      url: 'https://hooks.test/in?x=1',
      method: 'get',
      payload_a: 'b c',
      payload_n: null,
    });
    expect(get).toMatchObject({ method: 'GET', body: null });
    expect(get.url.toString()).toBe('https://hooks.test/in?x=1&a=b+c');
  });

  it.each([
    [{ url: 'http://hooks.test/' }, 'must be HTTPS'],
    [{ url: 'not a url' }, 'not a URL'],
    [{}, 'not a URL'],
    [{ url: 'https://user:pw@hooks.test/' }, 'credentials'],
    [{ url: 'https://hooks.test/', method: 'TRACE' }, 'Unsupported'],
    [{ url: 'https://hooks.test/', 'header.X-ODP-Signature': 'forged' }, 'cannot be set'],
    [{ url: 'https://hooks.test/', 'header.Bad Name': 'x' }, 'cannot be set'],
    [{ url: 'https://hooks.test/', 'header.X-A': 'a\r\nInjected: 1' }, 'invalid'],
  ])('refuses %j without retry', (parameters, message) => {
    let error: unknown;
    try {
      webhookRequest(parameters);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).retryable).toBe(false);
    expect((error as Error).message).toContain(message);
  });
});

describe('retry schedule', () => {
  it('waits 10 s, 60 s, 15 min, then gives up; never retries what is not retryable', () => {
    expect(nextAttemptAt(1, true, NOW)?.getTime()).toBe(NOW.getTime() + 10_000);
    expect(nextAttemptAt(2, true, NOW)?.getTime()).toBe(NOW.getTime() + 60_000);
    expect(nextAttemptAt(3, true, NOW)?.getTime()).toBe(NOW.getTime() + 900_000);
    expect(nextAttemptAt(4, true, NOW)).toBeNull();
    expect(nextAttemptAt(1, false, NOW)).toBeNull();
  });
});

describe('webhook gateway against a local HTTPS receiver', () => {
  let receiver: HttpsReceiver;
  let gateway: WebhookGateway;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    gateway = new WebhookGateway({
      policy: new AddressPolicy(['127.0.0.1/32']),
      ca: [receiver.ca],
      now: () => NOW,
      timeoutMs: 5000,
    });
  });
  afterAll(() => receiver.close());
  beforeEach(() => receiver.requests.splice(0));

  const call = (parameters: Record<string, string | null>) => ({
    id: 'job-1',
    tenantId: 't',
    secret: SECRET,
    parameters,
  });

  it('delivers a signed JSON POST with the extra headers', async () => {
    const status = await gateway.send(
      call({
        url: `${receiver.origin}/hook?k=v`,
        payload_invoice: '/data/t/invoices/1',
        'header.X-Source': 'odp',
      }),
    );
    expect(status).toBe(200);
    const [request] = receiver.requests;
    expect(request).toMatchObject({
      method: 'POST',
      url: '/hook?k=v',
      body: '{"invoice":"/data/t/invoices/1"}',
    });
    const timestamp = String(NOW.getTime() / 1000);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-source': 'odp',
      'x-odp-delivery': 'job-1',
      'x-odp-timestamp': timestamp,
      'x-odp-signature': webhookSignature(SECRET, timestamp, 'POST', '/hook?k=v', request!.body),
    });
    expect(request?.headers['x-odp-signature']).not.toBe(
      webhookSignature('another-secret', timestamp, 'POST', '/hook?k=v', request!.body),
    );
  });

  it('sends a GET with the payload as query parameters and no body', async () => {
    await gateway.send(call({ url: `${receiver.origin}/get`, method: 'GET', payload_a: '1' }));
    expect(receiver.requests[0]).toMatchObject({ method: 'GET', url: '/get?a=1', body: '' });
  });

  it('classifies statuses: 429 and 5xx retryable, other 4xx not', async () => {
    for (const [status, retryable] of [
      [429, true],
      [503, true],
      [500, true],
      [404, false],
      [400, false],
      [410, false],
    ] as const) {
      receiver.respondWith(status);
      const error = await gateway
        .send(call({ url: `${receiver.origin}/s` }))
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(GatewayError);
      expect([status, (error as GatewayError).retryable]).toEqual([status, retryable]);
    }
  });

  it('follows a redirect on the allowed network, re-signing for the new path', async () => {
    receiver.respondWith({ status: 307, location: '/moved' });
    await gateway.send(call({ url: `${receiver.origin}/first`, payload_a: 'x' }));
    expect(receiver.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ['POST', '/first', '{"a":"x"}'],
      ['POST', '/moved', '{"a":"x"}'],
    ]);
    const moved = receiver.requests[1]!;
    expect(moved.headers['x-odp-signature']).toBe(
      webhookSignature(SECRET, String(NOW.getTime() / 1000), 'POST', '/moved', '{"a":"x"}'),
    );
  });

  it('keeps the extra headers on a redirect within the origin', async () => {
    receiver.respondWith({ status: 308, location: '/moved' });
    await gateway.send(call({ url: `${receiver.origin}/first`, 'header.Authorization': 'Bearer t0ken' }));
    expect(receiver.requests.map((request) => request.headers['authorization'])).toEqual([
      'Bearer t0ken',
      'Bearer t0ken',
    ]);
  });

  describe('a redirect to another origin', () => {
    let other: HttpsReceiver;
    let both: WebhookGateway;
    beforeAll(async () => {
      other = await startHttpsReceiver();
      both = new WebhookGateway({
        policy: new AddressPolicy(['127.0.0.1/32']),
        ca: [receiver.ca, other.ca],
        now: () => NOW,
        timeoutMs: 5000,
      });
    });
    afterAll(() => other.close());
    beforeEach(() => other.requests.splice(0));

    const withCredentials = (extra: Record<string, string> = {}) =>
      call({
        url: `${receiver.origin}/hook`,
        payload_secret: 'from-a-secret-value',
        'header.Authorization': 'Bearer t0ken',
        'header.X-Api-Key': 'k3y',
        ...extra,
      });

    it('continues with a GET without the body and without the extra headers (301, 302, 303)', async () => {
      for (const status of [301, 302, 303]) {
        other.requests.splice(0);
        receiver.respondWith({ status, location: `${other.origin}/elsewhere` });
        await expect(both.send(withCredentials())).resolves.toBe(200);
        const [followed, ...more] = other.requests;
        expect(more).toEqual([]);
        expect(followed).toMatchObject({ method: 'GET', url: '/elsewhere', body: '' });
        expect(followed?.headers['authorization']).toBeUndefined();
        expect(followed?.headers['x-api-key']).toBeUndefined();
        expect(followed?.headers['x-odp-delivery']).toBe('job-1');
      }
    });

    it('refuses to repeat a request body there (307, 308), without retry', async () => {
      for (const status of [307, 308]) {
        receiver.respondWith({ status, location: `${other.origin}/elsewhere` });
        await expect(both.send(withCredentials())).rejects.toMatchObject({
          retryable: false,
          message: expect.stringContaining('another origin'),
        });
      }
      expect(other.requests).toEqual([]);
    });

    it('repeats a GET there (307) without the extra headers', async () => {
      receiver.respondWith({ status: 307, location: `${other.origin}/elsewhere?x=1` });
      await expect(both.send(withCredentials({ method: 'GET' }))).resolves.toBe(200);
      const [followed] = other.requests;
      expect(followed).toMatchObject({ method: 'GET', url: '/elsewhere?x=1' });
      expect(followed?.headers['authorization']).toBeUndefined();
      expect(followed?.headers['x-api-key']).toBeUndefined();
    });

    it('drops them for good: a redirect back to the first origin does not bring them back', async () => {
      receiver.respondWith({ status: 302, location: `${other.origin}/bounce` });
      other.respondWith({ status: 302, location: `${receiver.origin}/back` });
      await expect(both.send(withCredentials())).resolves.toBe(200);
      const back = receiver.requests.find((request) => request.url === '/back');
      expect(back?.headers['authorization']).toBeUndefined();
    });
  });

  it('re-checks every redirect: to a refused address, to plain HTTP', async () => {
    receiver.respondWith({ status: 302, location: 'https://10.0.0.1/internal' });
    await expect(gateway.send(call({ url: `${receiver.origin}/r` }))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('10.0.0.1'),
    });
    receiver.respondWith({ status: 301, location: `http://127.0.0.1/plain` });
    await expect(gateway.send(call({ url: `${receiver.origin}/r` }))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('non-HTTPS'),
    });
  });

  it('refuses the receiver when the allow-list does not name it, before connecting', async () => {
    const strict = new WebhookGateway({ policy: new AddressPolicy(), ca: [receiver.ca] });
    await expect(strict.send(call({ url: `${receiver.origin}/x` }))).rejects.toMatchObject({
      retryable: false,
    });
    const port = new URL(receiver.origin).port;
    for (const address of ['::ffff:127.0.0.1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:80ff:fffe']) {
      await expect(strict.send(call({ url: `https://[${address}]:${port}/x` }))).rejects.toMatchObject({
        retryable: false,
        message: expect.stringContaining('reserved address'),
      });
    }
    expect(receiver.requests).toEqual([]);
  });

  it('treats an unreachable receiver and an untrusted certificate as transient', async () => {
    const untrusted = new WebhookGateway({ policy: new AddressPolicy(['127.0.0.1/32']) });
    await expect(untrusted.send(call({ url: `${receiver.origin}/x` }))).rejects.toMatchObject({
      retryable: true,
    });
    await expect(gateway.send(call({ url: 'https://127.0.0.1:1/x' }))).rejects.toMatchObject({
      retryable: true,
    });
  });
});
