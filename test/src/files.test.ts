/**
 * Files through the real server (interface spec, Files; the 400 and 404 rules about files;
 * docs/files.md): upload, claiming in create / create related / patch, multiple files, download
 * with the Content-Disposition table and ranges, the lifecycle of the bytes, and the sweep of
 * unclaimed uploads; the example model's `documents` (a required FILE field) end to end. The same
 * flow runs on MinIO when tooling/engines started it.
 */
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { describeWithEngine } from '@odp/testkit';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi, Json } from './data-api.js';
import { createAccounts } from './support/accounts.js';
import type { TestAccount } from './support/accounts.js';

const MAX_UPLOAD = 256 * 1024;
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3000, 0x41)]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(500, 1),
]);
const TEXT = Buffer.from('plain text, 0123456789');

interface Descriptor {
  readonly href: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
}

let api: DataApi;
let accounts: Map<string, TestAccount>;

beforeAll(async () => {
  api = await startDataServer({ env: { ODP_MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });
  accounts = await createAccounts(api, [
    { name: 'dave', role: 'member' },
    { name: 'vera', role: 'viewer' },
  ]);
}, 120_000);
afterAll(async () => {
  await api?.server.stop();
});

async function uploadUrl(server: DataApi = api): Promise<string> {
  const res = await server.call('GET', '/upload');
  expect(res.status).toBe(200);
  const url = (await res.json()) as string;
  expect(res.headers.get('location')).toBe(url);
  return url;
}

function form(bytes: Buffer, fileName: string, claimedType = 'text/html', part = 'file'): FormData {
  const body = new FormData();
  body.append(part, new Blob([bytes], { type: claimedType }), fileName);
  return body;
}

async function upload(bytes: Buffer, fileName: string, server: DataApi = api): Promise<Descriptor> {
  const res = await fetch(await uploadUrl(server), { method: 'POST', body: form(bytes, fileName) });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as Descriptor[];
  expect(answer).toHaveLength(1);
  return answer[0]!;
}

/** The signed URL of a file href (`/data/{tenant}/download/...`), or the failed response. */
async function signedUrl(href: string, key?: string, server: DataApi = api): Promise<string> {
  const res = await fetch(`${server.server.baseUrl}${href}`, {
    headers: { 'X-API-Key': key ?? server.systemKey },
  });
  if (res.status !== 200)
    throw Object.assign(new Error(`download URL: ${res.status}`), { status: res.status });
  const url = (await res.json()) as string;
  expect(res.headers.get('location')).toBe(url);
  return url;
}

async function statusOfSignedUrl(href: string, key?: string): Promise<number> {
  return signedUrl(href, key).then(
    () => 200,
    (error: { status: number }) => error.status,
  );
}

async function document(body: Json, route = '/documents', server: DataApi = api): Promise<string> {
  return server.create('documents', { title: `doc ${Math.random()}`, ...body }, route);
}

async function problem(res: Response, status: number): Promise<Json> {
  expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({
    status,
    type: expect.stringContaining('application/problem+json'),
  });
  return (await res.json()) as Json;
}

const fieldsOf = (body: Json) =>
  ((body['errors'] as { field: string }[] | undefined) ?? []).map((e) => e.field);

/** Blob files of the test tenant on disk (bytes, upload records, temporary files). */
function blobFiles(server: DataApi = api): string[] {
  const root = path.join(server.server.dataDir, 'blobs');
  const list = (dir: string): string[] => {
    try {
      return readdirSync(path.join(root, dir)).map((name) => `${dir}/${name}`);
    } catch {
      return [];
    }
  };
  return [...list(`files/${server.tenant}`), ...list(`uploads/${server.tenant}`), ...list('.tmp')];
}

describe('upload (GET /data/{tenant}/upload, POST /binaries/{token})', () => {
  it('signs an upload URL under {base_url}/binaries/ as a JSON string and in Location (200)', async () => {
    expect(await uploadUrl()).toMatch(new RegExp(`^${api.server.baseUrl}/binaries/[\\w-]+\\.[\\w-]+$`));
  });

  it('answers one descriptor with server-determined metadata, never the client claim', async () => {
    const pdf = await upload(PDF, '../../secret/report.html');
    expect(pdf).toEqual({
      href: expect.stringMatching(/^\/binaries\/[0-9a-f-]{36}$/),
      fileName: 'report.html',
      contentType: 'application/pdf',
      size: PDF.length,
    });
    expect(await upload(TEXT, 'C:\\tmp\\list.csv')).toMatchObject({
      fileName: 'list.csv',
      contentType: 'text/csv',
    });
    expect(await upload(TEXT, 'noext')).toMatchObject({
      contentType: 'application/octet-stream',
      size: TEXT.length,
    });
  });

  it.each([
    ['Authorization', 'Bearer x'],
    ['X-API-Key', 'any'],
  ])('refuses an upload that sends %s (400), and the token still works', async (header, value) => {
    const url = await uploadUrl();
    await problem(
      await fetch(url, { method: 'POST', body: form(TEXT, 'a.txt'), headers: { [header]: value } }),
      400,
    );
    expect((await fetch(url, { method: 'POST', body: form(TEXT, 'a.txt') })).status).toBe(200);
  });

  it('accepts a token once; used, forged and download tokens get 404 with one body', async () => {
    const url = await uploadUrl();
    expect((await fetch(url, { method: 'POST', body: form(TEXT, 'a.txt') })).status).toBe(200);
    const id = await document({ file: await upload(PDF, 'a.pdf') });
    const { file } = (await api.get(`/documents/${id}`)) as { file: Descriptor };
    const download = await signedUrl(file.href);
    const forged = url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const bodies = new Set<string>();
    for (const target of [url, forged, `${api.server.baseUrl}/binaries/nothing`, download]) {
      const res = await fetch(target, { method: 'POST', body: form(TEXT, 'a.txt') });
      bodies.add(JSON.stringify(await problem(res, 404)));
    }
    for (const target of [url, forged, `${api.server.baseUrl}/binaries/${file.href.slice(-36)}`]) {
      bodies.add(JSON.stringify(await problem(await fetch(target), 404)));
    }
    expect(bodies.size).toBe(1);
  });

  it('refuses a body over ODP_MAX_UPLOAD_BYTES with 413 and leaves nothing behind', async () => {
    const before = blobFiles();
    const url = await uploadUrl();
    const res = await fetch(url, { method: 'POST', body: form(Buffer.alloc(MAX_UPLOAD + 1, 7), 'big.bin') });
    await problem(res, 413);
    expect(blobFiles()).toEqual(before);
  });

  it('leaves nothing behind when the client drops the connection midway', async () => {
    const before = blobFiles();
    const url = new URL(await uploadUrl());
    const boundary = 'cutOffBoundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n';
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 200000\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(100_000, 3));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(blobFiles().length).toBeGreaterThan(before.length); // the upload is in flight
    socket.destroy();
    const deadline = Date.now() + 5000;
    while (JSON.stringify(blobFiles()) !== JSON.stringify(before) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(blobFiles()).toEqual(before);
  });

  it.each([
    ['a body that is not multipart', () => ({ body: '{}', headers: { 'Content-Type': 'application/json' } })],
    ['no part named file', () => ({ body: form(TEXT, 'a.txt', 'text/plain', 'document') })],
  ])('refuses %s with 400 and leaves nothing behind', async (_label, request) => {
    const before = blobFiles();
    await problem(await fetch(await uploadUrl(), { method: 'POST', ...request() }), 400);
    expect(blobFiles()).toEqual(before);
  });
});

describe('claiming (create, create related, patch)', () => {
  it('the documents class: a required FILE field stored from the descriptor, unchanged', async () => {
    const descriptor = await upload(PDF, 'contract.pdf');
    const id = await document({ file: descriptor });
    const object = await api.get(`/documents/${id}`);
    expect(object['file']).toEqual({
      contentType: 'application/pdf',
      fileName: 'contract.pdf',
      size: PDF.length,
      href: `/data/${api.tenant}/download/${id}/${descriptor.href.slice(-36)}`,
    });
    const missing = await problem(await api.call('POST', '/documents', { body: { title: 'no file' } }), 400);
    expect(fieldsOf(missing)).toEqual(['file']);
  });

  it.each([
    ['fileName', 'other.pdf'],
    ['contentType', 'text/html'],
    ['size', 1],
  ])(
    'a descriptor whose %s differs from the upload is 400, and the upload stays claimable',
    async (key, value) => {
      const descriptor = await upload(PDF, 'a.pdf');
      const body = await problem(
        await api.call('POST', '/documents', { body: { title: 't', file: { ...descriptor, [key]: value } } }),
        400,
      );
      expect(fieldsOf(body)).toEqual(['file']);
      await document({ file: descriptor });
    },
  );

  it('a client-made descriptor that matches no upload is 400 (create and patch, FILE and IMAGE)', async () => {
    const forged = {
      href: '/binaries/11111111-2222-4333-8444-555555555555',
      fileName: '..\\..\\x.svg',
      contentType: 'image/svg+xml',
      size: 10,
    };
    expect(
      fieldsOf(
        await problem(await api.call('PATCH', `/companies/${DEMO.acme}`, { body: { logo: forged } }), 400),
      ),
    ).toEqual(['logo']);
    await problem(await api.call('POST', '/documents', { body: { title: 't', file: forged } }), 400);
    await problem(await api.call('POST', '/documents', { body: { title: 't', file: forged.href } }), 400);
    expect((await api.get(`/companies/${DEMO.acme}`))['logo']).toBeUndefined();
  });

  it('an upload is claimed by one field of one object', async () => {
    const descriptor = await upload(PDF, 'once.pdf');
    await document({ file: descriptor });
    await problem(await api.call('POST', '/documents', { body: { title: 't', file: descriptor } }), 400);
    const other = await upload(PDF, 'twice.pdf');
    const body = await problem(
      await api.call('POST', '/documents', { body: { title: 't', file: other, attachments: [other] } }),
      400,
    );
    expect(fieldsOf(body).length).toBeGreaterThan(0);
    await document({ file: other });
  });

  it('two concurrent writes with one upload: one stores it, the other is 400', async () => {
    const descriptor = await upload(PDF, 'race.pdf');
    const statuses = await Promise.all(
      [1, 2].map(async (n) => {
        const res = await api.call('POST', '/documents', { body: { title: `race ${n}`, file: descriptor } });
        return res.status;
      }),
    );
    expect(statuses.sort()).toEqual([201, 400]);
  });

  it('a file of another object is not claimable by its download href or descriptor', async () => {
    const first = await document({ file: await upload(PDF, 'mine.pdf') });
    const { file } = (await api.get(`/documents/${first}`)) as { file: Descriptor };
    await problem(await api.call('POST', '/documents', { body: { title: 't', file: file.href } }), 400);
    await problem(await api.call('POST', '/documents', { body: { title: 't', file } }), 400);
  });

  it('create related stores the upload too', async () => {
    const descriptor = await upload(PDF, 'related.pdf');
    const id = await document({ file: descriptor }, `/invoices/${DEMO.invoice1}/documents`);
    expect((await api.get(`/documents/${id}`))['file']).toMatchObject({ fileName: 'related.pdf' });
  });

  it('patch sets an IMAGE field; null clears it and deletes the bytes', async () => {
    const company = await api.create('companies', { legalName: `Logo ${Math.random()}` });
    const logo = await upload(PNG, 'logo.png');
    expect((await api.call('PATCH', `/companies/${company}`, { body: { logo } })).status).toBe(204);
    const { logo: stored } = (await api.get(`/companies/${company}`)) as { logo: Descriptor };
    expect(stored).toMatchObject({ contentType: 'image/png', size: PNG.length });
    const url = await signedUrl(stored.href);
    expect((await api.call('PATCH', `/companies/${company}`, { body: { logo: null } })).status).toBe(204);
    expect((await api.get(`/companies/${company}`))['logo']).toBeUndefined();
    expect((await fetch(url)).status).toBe(404);
    expect(await statusOfSignedUrl(stored.href)).toBe(404);
  });

  it('clearing a required file field is 400 and keeps the file', async () => {
    const id = await document({ file: await upload(PDF, 'keep.pdf') });
    for (const cleared of [null, '']) {
      const body = await problem(
        await api.call('PATCH', `/documents/${id}`, { body: { file: cleared } }),
        400,
      );
      expect(fieldsOf(body)).toEqual(['file']);
    }
    const { file } = (await api.get(`/documents/${id}`)) as { file: Descriptor };
    expect((await fetch(await signedUrl(file.href))).status).toBe(200);
  });

  it('multiple files: an array; add by sending existing plus new (href string kept); remove by omitting', async () => {
    const [a, b, c] = [await upload(TEXT, 'a.txt'), await upload(TEXT, 'b.txt'), await upload(TEXT, 'c.txt')];
    await problem(
      await api.call('POST', '/documents', {
        body: { title: 't', file: await upload(PDF, 'x.pdf'), attachments: a },
      }),
      400,
    );
    const id = await document({ file: await upload(PDF, 'x.pdf'), attachments: [a, b] });
    const names = async () =>
      ((await api.get(`/documents/${id}`))['attachments'] as Descriptor[]).map((file) => file.fileName);
    expect(await names()).toEqual(['a.txt', 'b.txt']);
    const held = (await api.get(`/documents/${id}`))['attachments'] as Descriptor[];
    expect(
      (await api.call('PATCH', `/documents/${id}`, { body: { attachments: [held[0]!.href, held[1], c] } }))
        .status,
    ).toBe(204);
    expect(await names()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    const bUrl = await signedUrl(held[1]!.href);
    expect(
      (await api.call('PATCH', `/documents/${id}`, { body: { attachments: [held[0]!.href] } })).status,
    ).toBe(204);
    expect(await names()).toEqual(['a.txt']);
    expect((await fetch(bUrl)).status).toBe(404);
    await problem(
      await api.call('PATCH', `/documents/${id}`, { body: { attachments: [held[1]!.href] } }),
      400,
    );
  });

  it('deleting an object deletes its bytes; merging away an object deletes the loser\u2019s bytes', async () => {
    const id = await document({
      file: await upload(PDF, 'gone.pdf'),
      attachments: [await upload(TEXT, 'g.txt')],
    });
    const object = await api.get(`/documents/${id}`);
    const urls = [
      await signedUrl((object['file'] as Descriptor).href),
      await signedUrl((object['attachments'] as Descriptor[])[0]!.href),
    ];
    expect((await api.call('DELETE', `/documents/${id}`)).status).toBe(200);
    for (const url of urls) expect((await fetch(url)).status).toBe(404);

    const winner = await document({ file: await upload(PDF, 'winner.pdf') });
    const loser = await document({ file: await upload(PDF, 'loser.pdf') });
    const winnerFile = (await api.get(`/documents/${winner}`))['file'] as Descriptor;
    const loserUrl = await signedUrl(((await api.get(`/documents/${loser}`))['file'] as Descriptor).href);
    expect((await api.call('POST', `/documents/${winner}/merge`, { body: { loser } })).status).toBe(204);
    expect((await fetch(loserUrl)).status).toBe(404);
    expect((await fetch(await signedUrl(winnerFile.href))).status).toBe(200);
  });
});

describe('download (GET /data/{tenant}/download/{objectId}/{fileId}, GET /binaries/{token})', () => {
  let hrefs: Record<'pdf' | 'png' | 'text', string>;

  beforeAll(async () => {
    const id = await document({
      file: await upload(PDF, 'Über report.pdf'),
      attachments: [await upload(PNG, 'pic.png'), await upload(TEXT, 'notes.txt')],
    });
    const object = await api.get(`/documents/${id}`);
    const attachments = object['attachments'] as Descriptor[];
    hrefs = {
      pdf: (object['file'] as Descriptor).href,
      png: attachments[0]!.href,
      text: attachments[1]!.href,
    };
  });

  it.each([
    ['pdf', 'application/pdf', 'inline', null, PDF],
    ['png', 'image/png', 'inline', null, PNG],
    ['text', 'text/plain', 'attachment', 'DENY', TEXT],
  ] as const)(
    '%s: served with no credential per the Content-Disposition table',
    async (kind, type, disposition, frame, bytes) => {
      const url = await signedUrl(hrefs[kind]);
      expect(url).toMatch(new RegExp(`^${api.server.baseUrl}/binaries/`));
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect({
        type: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition')?.split(';')[0],
        frame: res.headers.get('x-frame-options'),
        nosniff: res.headers.get('x-content-type-options'),
        length: res.headers.get('content-length'),
      }).toEqual({
        type,
        disposition,
        frame,
        nosniff: 'nosniff',
        length: String(bytes.length),
      });
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
      expect((await fetch(url)).status).toBe(200);
    },
  );

  it('names the file in Content-Disposition with an ASCII fallback and the UTF-8 name', async () => {
    const res = await fetch(await signedUrl(hrefs.pdf));
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="_ber report.pdf"; filename*=UTF-8''%C3%9Cber%20report.pdf`,
    );
  });

  it('serves Range requests with 206, Content-Range and Content-Length; 416 outside the file', async () => {
    const url = await signedUrl(hrefs.text);
    const part = await fetch(url, { headers: { Range: 'bytes=12-15' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 12-15/${TEXT.length}`);
    expect(part.headers.get('content-length')).toBe('4');
    expect(await part.text()).toBe('0123');
    const tail = await fetch(url, { headers: { Range: 'bytes=-3' } });
    expect(await tail.text()).toBe('789');
    const outside = await fetch(url, { headers: { Range: `bytes=${TEXT.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${TEXT.length}`);
  });

  it('refuses a signed URL fetched with a credential header (400)', async () => {
    const url = await signedUrl(hrefs.pdf);
    await problem(await fetch(url, { headers: { 'X-API-Key': api.systemKey } }), 400);
  });

  it('404 as if absent: missing object, unreadable object, file not held by it, upload never stored', async () => {
    const [objectId, fileId] = hrefs.pdf.split('/').slice(-2) as [string, string];
    const pending = (await upload(TEXT, 'pending.txt')).href.slice(-36);
    const other = await document({ file: await upload(PDF, 'other.pdf') });
    const base = `/data/${api.tenant}/download`;
    const cases = [
      `${base}/00000000-0000-4000-8000-000000000000/${fileId}`,
      `${base}/${objectId}/${pending}`,
      `${base}/${other}/${fileId}`,
      `${base}/${DEMO.acme}/${fileId}`,
      `${base}/not-a-uuid/${fileId}`,
      `${base}/${objectId}/not-a-uuid`,
    ];
    for (const href of cases)
      expect({ href, status: await statusOfSignedUrl(href) }).toEqual({ href, status: 404 });
    expect(await statusOfSignedUrl(hrefs.pdf, accounts.get('dave')!.key)).toBe(404);
    expect(await statusOfSignedUrl(hrefs.pdf)).toBe(200);
  });

  it('requires a credential for the download URL and the upload URL (401)', async () => {
    for (const route of ['/upload', hrefs.pdf.replace(`/data/${api.tenant}`, '')]) {
      await problem(await api.call('GET', route, { key: null }), 401);
    }
  });
});

describe('objects with files elsewhere in the api', () => {
  it('audit and capabilities answer for an object with files', async () => {
    const id = await document({ file: await upload(PDF, 'audited.pdf') });
    const access = await fetch(`${api.server.baseUrl}/audit/${api.tenant}/documents/${id}/access`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(access.status).toBe(200);
    expect(await api.get(`/documents/${id}/capabilities`)).toEqual({ mayModify: true, mayDelete: true });
  });

  it('the change event stream reports a file change as an update', async () => {
    const id = await document({ file: await upload(PDF, 'evented.pdf') });
    const stream = await api.call('GET', '/eventStream', { headers: { Accept: 'text/event-stream' } });
    const reader = stream.body!.getReader();
    const patched = api.call('PATCH', `/documents/${id}`, {
      body: { attachments: [await upload(TEXT, 'e.txt')] },
    });
    expect((await patched).status).toBe(204);
    let text = '';
    const decoder = new TextDecoder();
    while (!text.includes(`/documents/${id}`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel();
    const event = text.split('\n\n').find((block) => block.includes(`/documents/${id}`)) ?? '';
    expect(event).toContain('"type":"update"');
  });

  it('a viewer may not store an upload (403 on the write)', async () => {
    const descriptor = await upload(PDF, 'viewer.pdf');
    await problem(
      await api.call('POST', '/documents', {
        body: { title: 't', file: descriptor },
        key: accounts.get('vera')!.key,
      }),
      403,
    );
    await document({ file: descriptor });
  });
});

describe('tenants', () => {
  it('an upload of one tenant is not claimable in another, nor its files downloadable there', async () => {
    const other = String(
      (await api.server.odp(['tenant', 'create', '--name', 'Files B', '--model', 'examples/models/crm']))[
        'id'
      ],
    );
    const key = String((await api.server.odp(['key', 'create', '--tenant', other]))['key']);
    const descriptor = await upload(PDF, 'tenant-a.pdf');
    const call = (method: string, route: string, body?: unknown) =>
      fetch(`${api.server.baseUrl}/data/${other}${route}`, {
        method,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    await problem(await call('POST', '/documents', { title: 't', file: descriptor }), 400);
    const id = await document({ file: descriptor });
    const { file } = (await api.get(`/documents/${id}`)) as { file: Descriptor };
    await problem(await call('GET', file.href.replace(`/data/${api.tenant}`, '')), 404);
  });
});

describe('unclaimed uploads expire', () => {
  let short: DataApi;
  beforeAll(async () => {
    short = await startDataServer({
      env: { ODP_UNCLAIMED_UPLOAD_TTL_SECONDS: '1', ODP_UPLOAD_SWEEP_INTERVAL_SECONDS: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await short?.server.stop();
  });

  it('are swept with their bytes by the background job and can no longer be claimed', async () => {
    const descriptor = await upload(TEXT, 'late.txt', short);
    const fileId = descriptor.href.slice(-36);
    expect(blobFiles(short)).toContain(`files/${short.tenant}/${fileId}`);
    const deadline = Date.now() + 15_000;
    while (blobFiles(short).some((file) => file.endsWith(fileId)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(blobFiles(short).filter((file) => file.endsWith(fileId))).toEqual([]);
    await problem(await short.call('POST', '/documents', { body: { title: 't', file: descriptor } }), 400);
  });
});

describeWithEngine('files on MinIO (ODP_BLOBS=s3)', 'ODP_TEST_S3_ENDPOINT', (endpoint) => {
  let s3: DataApi;
  beforeAll(async () => {
    s3 = await startDataServer({
      env: {
        ODP_BLOBS: 's3',
        ODP_S3_ENDPOINT: endpoint,
        ODP_S3_BUCKET: 'odp-files-test',
        ODP_S3_ACCESS_KEY: process.env['ODP_TEST_S3_ACCESS_KEY'] ?? '',
        ODP_S3_SECRET_KEY: process.env['ODP_TEST_S3_SECRET_KEY'] ?? '',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await s3?.server.stop();
  });

  it('uploads, claims, serves whole and ranged, and deletes the bytes with the object', async () => {
    const descriptor = await upload(PDF, 'minio.pdf', s3);
    expect(descriptor).toMatchObject({ contentType: 'application/pdf', size: PDF.length });
    expect(blobFiles(s3)).toEqual([]);
    const id = await document({ file: descriptor }, '/documents', s3);
    const { file } = (await s3.get(`/documents/${id}`)) as { file: Descriptor };
    const url = await signedUrl(file.href, undefined, s3);
    expect(url).toMatch(new RegExp(`^${s3.server.baseUrl}/binaries/`));
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(PDF)).toBe(true);
    const part = await fetch(url, { headers: { Range: 'bytes=0-4' } });
    expect({ status: part.status, text: await part.text() }).toEqual({ status: 206, text: '%PDF-' });
    expect((await s3.call('DELETE', `/documents/${id}`)).status).toBe(200);
    expect((await fetch(url)).status).toBe(404);
  });
});
