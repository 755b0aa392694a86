/**
 * Sealed tokens through the real server (docs/data-api.md "Paging", docs/files.md, docs/events.md):
 * a list cursor, a signed file URL and an event-stream token each have exactly one valid spelling.
 * The last character of a token's signature carries two unused bits; another character with the
 * same significant bits decodes to the same signature under a lenient base64url decoder, so this
 * suite changes exactly those bits and expects the token refused like any damaged one.
 */
import { startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `token` with its last character swapped for the one differing only in the lowest (unused) bit. */
function otherSpelling(token: string): string {
  const last = ALPHABET.indexOf(token.at(-1) ?? '');
  expect(last).toBeGreaterThanOrEqual(0);
  return token.slice(0, -1) + ALPHABET[last ^ 1];
}

let api: DataApi;

beforeAll(async () => {
  api = await startDataServer();
});
afterAll(async () => {
  await api?.server.stop();
});

it('refuses a list cursor spelled another way (400 naming after)', async () => {
  const list = '/companies?sort=legalName&size=1';
  const first = await api.get<{ _links: Record<string, { href: string } | undefined> }>(list);
  const cursor = new URL(first._links['next']?.href ?? '', 'http://x').searchParams.get('after') ?? '';
  expect((await api.call('GET', `${list}&after=${cursor}`)).status).toBe(200);
  const res = await api.call('GET', `${list}&after=${otherSpelling(cursor)}`);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { errors: unknown }).errors).toEqual([
    { field: 'after', message: 'not a cursor of this query' },
  ]);
});

it('refuses a signed file URL spelled another way (404)', async () => {
  const upload = (await api.get('/upload')) as unknown as string;
  const body = new FormData();
  body.append('file', new Blob([Buffer.from('%PDF-1.7\n')], { type: 'application/pdf' }), 'a.pdf');
  const uploaded = await fetch(upload, { method: 'POST', body });
  expect(uploaded.status).toBe(200);
  const [file] = (await uploaded.json()) as Json[];
  const id = await api.create('documents', { title: 'sealed', file });
  const { file: stored } = (await api.get(`/documents/${id}`)) as { file: { href: string } };
  const signed = await fetch(`${api.server.baseUrl}${stored.href}`, {
    headers: { 'X-API-Key': api.systemKey },
  });
  const url = (await signed.json()) as string;
  expect((await fetch(url)).status).toBe(200);
  expect((await fetch(otherSpelling(url))).status).toBe(404);
});

it('refuses an event-stream token spelled another way (401)', async () => {
  const { token } = (await api.get('/eventStream/token')) as { token: string };
  const statusOf = async (value: string): Promise<number> => {
    const abort = new AbortController();
    const href = api.path(`/eventStream?token=${encodeURIComponent(value)}`);
    const res = await fetch(`${api.server.baseUrl}${href}`, { signal: abort.signal });
    abort.abort();
    return res.status;
  };
  expect(await statusOf(token)).toBe(200);
  expect(await statusOf(otherSpelling(token))).toBe(401);
});
