import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStore } from '@odp/core';
import { openFsBlobStore } from '@odp/blobs-fs';
import { parseRange } from './byte-range.js';
import { FileService } from './file-service.js';
import type { FileServiceOptions } from './file-service.js';
import { contentDisposition, detectContentType, sanitizeFileName } from './content-type.js';
import { FileTokens } from './tokens.js';

const TENANT = 'aaaaaaaa-0000-4000-8000-000000000001';
const OTHER = 'bbbbbbbb-0000-4000-8000-000000000002';
const SECRET = 'k'.repeat(40);

function multipart(parts: { name: string; filename?: string; type?: string; bytes: Buffer }[]) {
  const boundary = 'xXxBoundaryxXx';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${part.type ?? 'text/html'}\r\n\r\n`,
      ),
      part.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: () => Readable.from(chunks),
  };
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(1000, 7)]);

let root: string;
let blobs: BlobStore;
let clock: number;
let files: FileService;

async function keys(): Promise<string[]> {
  const found: string[] = [];
  for await (const info of blobs.list('')) found.push(info.key);
  return found.sort();
}

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** A service over the test's blob store and clock, with `options` besides. */
function fileService(options: Partial<FileServiceOptions> = {}): FileService {
  return new FileService({
    blobs,
    secretKey: SECRET,
    baseUrl: 'http://odp.test',
    maxUploadBytes: 4096,
    unclaimedUploadTtlMs: 60_000,
    now: () => clock,
    ...options,
  });
}

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'odp-files-'));
  blobs = await openFsBlobStore(root);
  clock = Date.now();
  files = fileService();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('upload', () => {
  it('stores the part with server-determined metadata, never the client claim', async () => {
    const url = files.requestUpload(TENANT);
    expect(url).toMatch(/^http:\/\/odp\.test\/binaries\/[\w-]+\.[\w-]+$/);
    const form = multipart([{ name: 'file', filename: '../../evil.html', type: 'text/html', bytes: PDF }]);
    const descriptor = await files.receive(tokenOf(url), form.headers, form.body());
    expect(descriptor).toEqual({
      href: expect.stringMatching(/^\/binaries\/[0-9a-f-]{36}$/),
      fileName: 'evil.html',
      contentType: 'application/pdf',
      size: PDF.length,
    });
    const fileId = descriptor.href.slice(-36);
    expect(await keys()).toEqual([`files/${TENANT}/${fileId}`, `uploads/${TENANT}/${fileId}`]);
    expect(await files.claimsFor(TENANT).upload(fileId)).toEqual({
      fileId,
      fileName: 'evil.html',
      contentType: 'application/pdf',
      size: PDF.length,
    });
    expect(await files.claimsFor(OTHER).upload(fileId)).toBeNull();
  });

  it('stores nothing for a deleted tenant: refused before the bytes, dropped when deleted meanwhile', async () => {
    let exists = true;
    files = fileService({ tenantExists: async (tenantId) => tenantId !== TENANT || exists });
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    const signedBefore = tokenOf(files.requestUpload(TENANT));
    const during = tokenOf(files.requestUpload(TENANT));
    // The tenant is deleted while the body arrives: after the first chunk, before the rest.
    const chunks = [...(await form.body().toArray())] as Buffer[];
    const slow = Readable.from(
      (async function* () {
        yield chunks[0];
        exists = false;
        yield* chunks.slice(1);
      })(),
    );
    await expect(files.receive(during, form.headers, slow)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(files.receive(signedBefore, form.headers, form.body())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await keys()).toEqual([]);
  });

  it('accepts a token once', async () => {
    const token = tokenOf(files.requestUpload(TENANT));
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    await files.receive(token, form.headers, form.body());
    await expect(files.receive(token, form.headers, form.body())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('accepts one of two concurrent uploads with one token', async () => {
    const token = tokenOf(files.requestUpload(TENANT));
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    const outcomes = await Promise.allSettled([
      files.receive(token, form.headers, form.body()),
      files.receive(token, form.headers, form.body()),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('refuses expired, forged and download tokens with one message', async () => {
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    const expired = tokenOf(files.requestUpload(TENANT));
    clock += 121_000;
    const forged = new FileTokens('x'.repeat(40)).sign({
      kind: 'upload',
      tenantId: TENANT,
      fileId: 'f',
      expiresAt: clock + 1000,
    });
    const messages = new Set<string>();
    for (const token of [expired, forged, 'garbage', `${forged}x`]) {
      const error = await files.receive(token, form.headers, form.body()).catch((e: Error) => e);
      expect(error).toMatchObject({ code: 'NOT_FOUND' });
      messages.add((error as Error).message);
    }
    expect(messages.size).toBe(1);
    expect(await keys()).toEqual([]);
  });

  it('answers 413 past the limit and leaves nothing behind', async () => {
    const form = multipart([{ name: 'file', filename: 'big.bin', bytes: Buffer.alloc(5000, 1) }]);
    await expect(
      files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body()),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await keys()).toEqual([]);
  });

  it.each([
    ['no part named file', multipart([{ name: 'other', filename: 'a.txt', bytes: Buffer.from('x') }])],
    ['a plain field named file', multipart([{ name: 'file', bytes: Buffer.from('x') }])],
    ['not multipart', { headers: { 'content-type': 'application/json' }, body: () => Readable.from(['{}']) }],
  ])('refuses a body with %s (400) and leaves nothing', async (_label, form) => {
    await expect(
      files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body()),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await keys()).toEqual([]);
  });

  it('leaves nothing when the body fails before it is read', async () => {
    const failed = new Readable({ read() {} });
    failed.on('error', () => undefined);
    failed.destroy(new Error('aborted'));
    const form = multipart([{ name: 'file', filename: 'a.bin', bytes: Buffer.alloc(10) }]);
    await expect(
      files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, failed),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await keys()).toEqual([]);
  });

  it('leaves nothing when the body is cut off', async () => {
    const form = multipart([{ name: 'file', filename: 'a.bin', bytes: Buffer.alloc(3000, 2) }]);
    const whole = Buffer.concat(await form.body().toArray());
    const cut = new Readable({ read() {} });
    cut.push(whole.subarray(0, 2000));
    setTimeout(() => cut.destroy(new Error('aborted')), 20);
    await expect(
      files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, cut),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    expect(await keys()).toEqual([]);
  });
});

describe('claims, release and sweep', () => {
  async function upload(): Promise<string> {
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    return (await files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body())).href.slice(
      -36,
    );
  }

  it('a claimed upload is no longer claimable; a withdrawn claim leaves it claimable', async () => {
    const claims = files.claimsFor(TENANT);
    const fileId = await upload();
    await claims.claim([{ objectId: 'o1', fileId }]);
    expect(await claims.upload(fileId)).toBeNull();
    await expect(claims.claim([{ objectId: 'o2', fileId }])).rejects.toMatchObject({ code: 'VALIDATION' });
    await claims.settle(false, [{ objectId: 'o1', fileId }], []);
    expect(await claims.upload(fileId)).not.toBeNull();
    await claims.claim([{ objectId: 'o1', fileId }]);
    await claims.settle(true, [{ objectId: 'o1', fileId }], []);
    expect(await claims.upload(fileId)).toBeNull();
    // A write that found the upload claimable before that one committed cannot claim it now.
    await expect(claims.claim([{ objectId: 'o2', fileId }])).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await claims.upload(fileId)).toBeNull();
    expect(await keys()).toEqual([`files/${TENANT}/${fileId}`]);
    await claims.settle(true, [], [fileId]);
    expect(await keys()).toEqual([]);
  });

  it('sweeps uploads unclaimed past the limit, but not one a committed write holds', async () => {
    const abandoned = await upload();
    const held = await upload();
    await files.claimsFor(TENANT).claim([{ objectId: 'holder', fileId: held }]);
    // The process stops after the write committed, before it settled: a new one sweeps.
    files = new FileService({
      blobs,
      secretKey: SECRET,
      baseUrl: 'http://odp.test',
      maxUploadBytes: 4096,
      unclaimedUploadTtlMs: 60_000,
      now: () => clock,
    });
    expect(await files.sweep(async () => true)).toBe(0);
    clock += 61_000 + 1000 * 3600;
    const asked: string[] = [];
    const deleted = await files.sweep(async (tenantId, objectId, fileId) => {
      asked.push(`${tenantId} ${objectId} ${fileId}`);
      return objectId === 'holder';
    });
    expect(deleted).toBe(1);
    expect(asked).toEqual([`${TENANT} holder ${held}`]);
    expect(await keys()).toEqual([`files/${TENANT}/${held}`]);
    void abandoned;
  });
});

describe('tenant deletion', () => {
  it('deletes every file of one tenant, held, unclaimed or generated, and none of another', async () => {
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('hello') }]);
    await files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body());
    const report = { fileName: 'r.html', contentType: 'text/html' };
    const generated = await files.storeGenerated(TENANT, report, Readable.from([PDF]));
    await files.storeGenerated(OTHER, report, Readable.from([PDF]));
    expect(await files.deleteTenantFiles(TENANT)).toBe(4);
    expect((await keys()).every((key) => key.includes(OTHER))).toBe(true);
    expect(await keys()).toHaveLength(2);
    await expect(files.open(tokenOf(files.generatedUrl(TENANT, generated)), undefined)).rejects.toMatchObject(
      {
        code: 'NOT_FOUND',
      },
    );
  });
});

describe('download', () => {
  it('serves whole files and ranges of a valid download token; 404 for anything else', async () => {
    const form = multipart([{ name: 'file', filename: 'a.txt', bytes: Buffer.from('0123456789') }]);
    const descriptor = await files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body());
    const file = { ...descriptor, fileId: descriptor.href.slice(-36) };
    const url = files.downloadUrl(TENANT, 'object', file);
    const whole = await files.open(tokenOf(url), undefined);
    expect(Buffer.concat(await whole.body.toArray()).toString()).toBe('0123456789');
    const part = await files.open(tokenOf(url), 'bytes=3-5');
    expect(part.range).toEqual({ start: 3, end: 5 });
    expect(Buffer.concat(await part.body.toArray()).toString()).toBe('345');
    await expect(files.open(tokenOf(url), 'bytes=20-')).rejects.toMatchObject({
      code: 'RANGE_NOT_SATISFIABLE',
    });
    await expect(files.open(tokenOf(files.requestUpload(TENANT)), undefined)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    clock += 120_001;
    await expect(files.open(tokenOf(url), undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each<[string | undefined, ReturnType<typeof parseRange>]>([
    [undefined, null],
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=5-', { start: 5, end: 9 }],
    ['bytes=-3', { start: 7, end: 9 }],
    ['bytes=-30', { start: 0, end: 9 }],
    ['bytes=2-100', { start: 2, end: 9 }],
    ['bytes=10-', { start: 1, end: 0 }],
    ['bytes=5-2', null],
    ['bytes=0-1,3-4', null],
    ['items=0-1', null],
  ])('Range %p of 10 bytes', (header, expected) => {
    expect(parseRange(header, 10)).toEqual(expected);
  });
});

describe('content type and name', () => {
  it.each([
    [Buffer.from('%PDF-1.4'), 'x.exe', 'application/pdf'],
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'x.html', 'image/png'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'photo', 'image/jpeg'],
    [Buffer.from('GIF89a...'), 'x', 'image/gif'],
    [
      Buffer.from('PK\u0003\u0004rest'),
      'sheet.xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    [Buffer.from('PK\u0003\u0004rest'), 'archive.pdf', 'application/zip'],
    [Buffer.from('<html><script>'), 'page.html', 'text/html'],
    [Buffer.from('<svg xmlns=...>'), 'logo.SVG', 'image/svg+xml'],
    [Buffer.from('plain words'), 'notes.txt', 'text/plain'],
    [Buffer.from('plain words'), 'noextension', 'application/octet-stream'],
  ])('%p named %p is %p', (head, name, type) => {
    expect(detectContentType(head, name)).toBe(type);
  });

  it.each([
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['  spaced name.txt  ', 'spaced name.txt'],
    ['bell\u0007\u0000.txt', 'bell.txt'],
    ['abc\u202Etxt.exe', 'abctxt.exe'],
    ['..', 'file'],
    ['', 'file'],
    [undefined, 'file'],
    ['x'.repeat(300), 'x'.repeat(255)],
    ['Überweisung ✓.pdf', 'Überweisung ✓.pdf'],
  ])('sanitises %p to %p', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('writes Content-Disposition per the table with a safe fallback name', () => {
    expect(contentDisposition('application/pdf', 'a "b".pdf')).toBe(
      `inline; filename="a _b_.pdf"; filename*=UTF-8''a%20%22b%22.pdf`,
    );
    expect(contentDisposition('image/svg+xml', 'x.svg')).toMatch(/^inline;/);
    expect(contentDisposition('text/html', 'Ü.html')).toBe(
      `attachment; filename="_.html"; filename*=UTF-8''%C3%9C.html`,
    );
  });
});

describe('generated files and reading uploads', () => {
  it('stores a generated file, serves it by a signed URL and sweeps it after its time to live', async () => {
    const file = await files.storeGenerated(
      TENANT,
      { fileName: 'companies/export.xlsx', contentType: 'application/octet-stream' },
      Readable.from([Buffer.from('generated bytes')]),
    );
    expect(file).toEqual({
      fileId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fileName: 'export.xlsx',
      contentType: 'application/octet-stream',
      size: 15,
    });
    const opened = await files.open(tokenOf(files.generatedUrl(TENANT, file)), undefined);
    const chunks: Buffer[] = [];
    for await (const chunk of opened.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('generated bytes');
    expect(await keys()).toEqual(
      [`files/${TENANT}/${file.fileId}`, `generated/${TENANT}/${file.fileId}`].sort(),
    );
    // A write can never claim a generated file into a field.
    expect(await files.claimsFor(TENANT).upload(file.fileId)).toBeNull();
    expect(await files.sweep(async () => false)).toBe(0);
    clock += 61 * 60 * 1000;
    expect(await files.sweep(async () => false)).toBe(1);
    expect(await keys()).toEqual([]);
  });

  it('reads the bytes of an unclaimed upload named by its unchanged descriptor only', async () => {
    const form = multipart([{ name: 'file', filename: 'people.csv', bytes: Buffer.from('a,b\n1,2\n') }]);
    const descriptor = await files.receive(tokenOf(files.requestUpload(TENANT)), form.headers, form.body());
    const { file, body } = await files.readUpload(TENANT, descriptor, 'file');
    expect(file.contentType).toBe('text/csv');
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('a,b\n1,2\n');
    for (const changed of [
      { ...descriptor, size: descriptor.size + 1 },
      { ...descriptor, fileName: 'other.csv' },
      { ...descriptor, href: '/binaries/../x' },
      descriptor.href,
      null,
    ]) {
      await expect(files.readUpload(TENANT, changed, 'file')).rejects.toThrow('must be the descriptor');
    }
    await expect(files.readUpload(OTHER, descriptor, 'file')).rejects.toThrow('must be the descriptor');
  });
});
