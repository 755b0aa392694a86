/**
 * Tenant isolation for documents (docs/reports.md "Limits", docs/model-format.md "Metadata"):
 * report rendering runs on a worker thread within its limits, so tenant A's PDF report of a note of
 * 9,000 lines leaves tenant B's requests answered; a rendering over its limit answers 422
 * `report-failed` and the server goes on; and the OpenAPI document, generated once per model version, is the same bytes
 * (with one `ETag`) for every request of a flood while B keeps being answered, and changes with a
 * model reload.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pdfText } from '@odp/reports/testing';
import { DataApi, DEMO, startDataServer } from './data-api.js';
import type { Json } from './data-api.js';
import { REPO_ROOT } from './support/server.js';

const LINES = 9000;
const modelDirs: string[] = [];

afterAll(() => {
  for (const dir of modelDirs) rmSync(dir, { recursive: true, force: true });
});

/** A private copy of the CRM model whose notes have a PDF report printing their body. */
function modelWithNoteReport(): string {
  const modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-isolation-documents-'));
  modelDirs.push(modelDir);
  cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
  editJson(path.join(modelDir, 'classes/crm/note.json'), (note) => ({
    ...note,
    reports: [{ name: 'notePdf', template: 'templates/note.hbs', format: 'pdf', languages: ['en'] }],
  }));
  writeFileSync(
    path.join(modelDir, 'templates/note.hbs'),
    '<html><head><title>{{subject}}</title></head><body><h1>{{subject}}</h1><p>{{body}}</p></body></html>',
  );
  return modelDir;
}

function editJson(file: string, edit: (value: Json) => Json): void {
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Json), null, 2));
}

/** A tenant of its own on `modelDir` in the server of `api`, with a system key and the default data. */
async function tenantOn(api: DataApi, name: string, modelDir: string): Promise<DataApi> {
  const created = await api.server.odp(['tenant', 'create', '--name', name, '--model', modelDir]);
  const tenant = String(created['id']);
  const key = String((await api.server.odp(['key', 'create', '--tenant', tenant]))['key']);
  const other = new DataApi(api.server, tenant, key);
  const loaded = await other.call('POST', '/loadDefaultData');
  if (loaded.status !== 200) throw new Error(`loadDefaultData: ${loaded.status}`);
  return other;
}

/** Creates a note whose body holds `LINES` lines; answers its id. */
async function longNote(api: DataApi): Promise<string> {
  const body = Array.from({ length: LINES }, (_, index) => `Line ${index} of a long note`).join('\n');
  const res = await api.call('POST', '/notes', { body: { subject: 'Long note', body } });
  if (res.status !== 201) throw new Error(`create note: ${res.status} ${await res.text()}`);
  return String(res.headers.get('location')).slice(-36);
}

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly retryAfter: string | null;
  readonly etag: string | null;
  readonly body: Buffer;
}

async function answer(response: Promise<Response>): Promise<Answer> {
  const res = await response;
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    etag: res.headers.get('etag'),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

const parsed = (sent: Answer): Json => JSON.parse(sent.body.toString('utf8')) as Json;

/** Tenant B's get one, sent one after another until `work` settles (at least once). */
async function throughout<T>(work: Promise<T>, b: DataApi): Promise<{ result: T; bStatuses: number[] }> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  const bStatuses: number[] = [];
  do {
    bStatuses.push((await b.call('GET', `/companies/${DEMO.globex}`)).status);
  } while (!settled);
  return { result: await done, bStatuses };
}

const report = (api: DataApi, noteId: string) => answer(api.call('GET', `/notes/${noteId}/reports/notePdf`));

/** The server of the first suites: tenant B is its demo tenant, tenant A one on `modelDir`. */
let b: DataApi;
let a: DataApi;
let modelDir: string;

beforeAll(async () => {
  b = await startDataServer();
  modelDir = modelWithNoteReport();
  a = await tenantOn(b, 'Tenant A', modelDir);
}, 120_000);
afterAll(async () => {
  await b?.server.stop();
});

describe('report rendering on a worker thread', () => {
  it("renders A's PDF of a 9,000-line note while B's get one, sent throughout, all answer 200", async () => {
    const { result, bStatuses } = await throughout(report(a, await longNote(a)), b);
    expect(result.status).toBe(200);
    expect(bStatuses.every((status) => status === 200)).toBe(true);
    const file = await fetch(String(parsed(result)));
    expect(file.status).toBe(200);
    const { pages, text } = await pdfText(Buffer.from(await file.arrayBuffer()));
    expect(pages).toBeGreaterThan(10);
    expect(text).toContain(`Line ${LINES - 1} of a long note`);
  }, 120_000);

  it("refuses a rendering past the tenant's ODP_TENANT_REPORTS (2) before reading its object", async () => {
    const noteId = await longNote(a);
    const missing = '00000000-0000-4000-8000-000000000000';
    // A alone (no request of B in the last second): the fair share runs A's requests at once, so
    // both renderings hold their slots together (with B active, A's would take turns).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    let settled = false;
    const running = Promise.all([report(a, noteId), report(a, noteId)]).finally(() => {
      settled = true;
    });
    // While both renderings hold the tenant's slots (each takes a process start and more), a report
    // of a note that does not exist is refused for the slot (429), not answered 404 after a read.
    const whileRunning: Answer[] = [];
    while (!settled) {
      whileRunning.push(await report(a, missing));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await running).map((sent) => sent.status)).toEqual([200, 200]);
    const refused = whileRunning.filter((sent) => sent.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((sent) => sent.retryAfter === '2')).toBe(true);
    expect(whileRunning.every((sent) => sent.status === 429 || sent.status === 404)).toBe(true);
    expect((await report(a, missing)).status).toBe(404);
  }, 120_000);
});

describe('a report over its limit (a server with ODP_REPORT_TIMEOUT_MS=10)', () => {
  let limited: DataApi;
  let over: DataApi;
  let noteId: string;

  beforeAll(async () => {
    limited = await startDataServer({ env: { ODP_REPORT_TIMEOUT_MS: '10' } });
    over = await tenantOn(limited, 'Over limit', modelWithNoteReport());
    noteId = await longNote(over);
  }, 120_000);
  afterAll(async () => {
    await limited?.server.stop();
  });

  it('answers 422 report-failed naming the limit, and the server keeps serving both tenants', async () => {
    const refused = await report(over, noteId);
    expect(refused.status).toBe(422);
    expect(refused.contentType).toContain('application/problem+json');
    expect(parsed(refused)).toMatchObject({
      type: 'urn:odp:problem:report-failed',
      status: 422,
      reason: 'time',
    });
    expect(String(parsed(refused)['detail'])).toContain('0.01 s');
    expect((await limited.call('GET', `/companies/${DEMO.globex}`)).status).toBe(200);
    expect((await over.call('GET', `/notes/${noteId}`)).status).toBe(200);
    expect((await report(over, noteId)).status).toBe(422);
  }, 60_000);
});

describe('GET /metadata/{tenant}/openapi.json, once per model version', () => {
  const openapi = () =>
    answer(
      fetch(`${a.server.baseUrl}/metadata/${a.tenant}/openapi.json`, {
        headers: { 'X-API-Key': a.systemKey },
      }),
    );

  it("answers A's flood with the same bytes and ETag while B's get one all answer 200", async () => {
    const flood = async (): Promise<Answer[]> => {
      const all: Answer[] = [];
      for (let round = 0; round < 4; round += 1) {
        all.push(...(await Promise.all(Array.from({ length: 16 }, () => openapi()))));
      }
      return all;
    };
    const { result, bStatuses } = await throughout(flood(), b);
    expect(result).toHaveLength(64);
    const first = result[0] as Answer;
    expect(first.status).toBe(200);
    expect(first.contentType).toContain('application/vnd.oai.openapi+json');
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    for (const sent of result) {
      expect(sent.status).toBe(200);
      expect(sent.etag).toBe(first.etag);
      expect(sent.body.equals(first.body)).toBe(true);
    }
    expect(bStatuses.every((status) => status === 200)).toBe(true);
  }, 120_000);

  /**
   * The status of a conditional request for the document. Through node:http: fetch turns a request
   * with `If-None-Match` into one with `Cache-Control: no-cache`, which no server answers with 304.
   */
  const revalidate = (etag: string) =>
    new Promise<number>((resolve, reject) => {
      const url = `${a.server.baseUrl}/metadata/${a.tenant}/openapi.json`;
      get(url, { headers: { 'X-API-Key': a.systemKey, 'If-None-Match': etag } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const { etag } = await openapi();
    expect(await revalidate(String(etag))).toBe(304);
    expect(await revalidate('"other"')).toBe(200);
  });

  /** The document as sent (not decoded), asked for through node:http with `headers`. */
  const raw = (headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const url = `${a.server.baseUrl}/metadata/${a.tenant}/openapi.json`;
      get(url, { headers: { 'X-API-Key': a.systemKey, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      }).on('error', reject);
    });

  it('sends gzip or brotli by Accept-Encoding, each decoding to the same document, each with its ETag', async () => {
    const plain = await raw({});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('private, no-cache');
    expect(plain.headers['vary']).toContain('Accept-Encoding');
    const document = JSON.parse(plain.body.toString('utf8')) as Json;
    expect(document['openapi']).toMatch(/^3\.1/);
    const gzipped = await raw({ 'Accept-Encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 4);
    const brotli = await raw({ 'Accept-Encoding': 'gzip;q=0.5, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
    const tags = new Set([plain.headers.etag, gzipped.headers.etag, brotli.headers.etag]);
    expect(tags.size).toBe(3);
    for (const tag of tags) expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    // Any coding's tag revalidates any request: they hold the same document.
    const notModified = await raw({
      'Accept-Encoding': 'br',
      'If-None-Match': `"other", ${gzipped.headers.etag}`,
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(gzipped.headers.etag);
    expect(notModified.body.length).toBe(0);
    expect((await raw({ 'If-None-Match': `W/${String(brotli.headers.etag)}` })).status).toBe(304);
    expect((await raw({ 'If-None-Match': '*' })).status).toBe(304);
    expect(
      (await raw({ 'Accept-Encoding': 'gzip', 'If-None-Match': '"other"' })).headers['content-encoding'],
    ).toBe('gzip');
  });

  it('is generated anew after a model reload, with a new ETag', async () => {
    const before = await openapi();
    expect(before.body.toString('utf8')).not.toContain('reviewedBy');
    editJson(path.join(modelDir, 'classes/crm/note.json'), (note) => ({
      ...note,
      fields: { ...(note['fields'] as Json), reviewedBy: { type: 'TEXT' } },
    }));
    const reload = await fetch(`${a.server.baseUrl}/admin/${a.tenant}/reloadModel`, {
      method: 'POST',
      headers: { 'X-API-Key': a.systemKey },
    });
    expect(reload.status).toBe(200);
    const after = await openapi();
    expect(after.status).toBe(200);
    expect(after.body.toString('utf8')).toContain('reviewedBy');
    expect(after.etag).not.toBe(before.etag);
    expect(await revalidate(String(before.etag))).toBe(200);
    expect(await revalidate(String(after.etag))).toBe(304);
    expect((await openapi()).body.equals(after.body)).toBe(true);
  }, 60_000);
});
