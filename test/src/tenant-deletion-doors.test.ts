/**
 * Deleting a tenant closes every door at once (docs/admin.md, "Delete tenant data"; docs/files.md,
 * "Deleted tenants"): an upload URL signed before `DELETE /admin/{tenant}?deleteTenant=true` answers
 * 404 after it and stores nothing, also when its upload was already receiving when the deletion came;
 * an event stream of the tenant that was open ends; another tenant's stream stays open.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DataApi, startDataServer } from './data-api.js';
import { openEventStream } from './support/event-stream.js';
import type { EventStreamClient } from './support/event-stream.js';
import { createCrmTenant } from './support/tenants.js';

const DOOMED_NAME = 'Doomed Doors';

let api: DataApi;
let doomed: DataApi;
let doomedStream: EventStreamClient;
let keptStream: EventStreamClient;
let signedUnused: string;
/** The answer of an upload that was receiving when the deletion came, finished after it. */
let inFlight: Response;

/** Blob files of a tenant on disk (bytes and upload records). */
function blobFiles(tenantId: string): string[] {
  const root = path.join(api.server.dataDir, 'blobs');
  return ['files', 'uploads'].flatMap((kind) => {
    const dir = path.join(root, kind, tenantId);
    return existsSync(dir) ? readdirSync(dir).map((name) => `${kind}/${name}`) : [];
  });
}

async function uploadUrl(): Promise<string> {
  const res = await doomed.call('GET', '/upload');
  if (res.status !== 200) throw new Error(`upload URL: ${res.status}`);
  return (await res.json()) as string;
}

/** A multipart body of one part `file`, in two halves: the head with some bytes, and the rest. */
function multipartHalves(): { contentType: string; head: Uint8Array; rest: Uint8Array } {
  const boundary = 'doorsBoundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="late.txt"\r\nContent-Type: text/plain\r\n\r\n${'a'.repeat(64 * 1024)}`;
  const rest = `${'b'.repeat(64 * 1024)}\r\n--${boundary}--\r\n`;
  const encoder = new TextEncoder();
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(head),
    rest: encoder.encode(rest),
  };
}

/** Resolves once `check` holds (polled; bounded). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

beforeAll(async () => {
  api = await startDataServer();
  const { id: tenantId, key } = await createCrmTenant(api.server, DOOMED_NAME);
  doomed = new DataApi(api.server, tenantId, key);

  doomedStream = await openEventStream(doomed);
  keptStream = await openEventStream(api);
  signedUnused = await uploadUrl();

  // An upload whose head has arrived (its record is written) when the deletion comes.
  const body = multipartHalves();
  let sendRest: () => void = () => undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body.head);
      sendRest = () => {
        controller.enqueue(body.rest);
        controller.close();
      };
    },
  });
  const answer = fetch(await uploadUrl(), {
    method: 'POST',
    headers: { 'Content-Type': body.contentType },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  await eventually(() => blobFiles(tenantId).length > 0, 'the upload began');

  const deleted = await fetch(
    `${api.server.baseUrl}/admin/${tenantId}?name=${encodeURIComponent(DOOMED_NAME)}&deleteTenant=true`,
    { method: 'DELETE', headers: { 'X-API-Key': key } },
  );
  if (deleted.status !== 200) throw new Error(`delete: ${deleted.status} ${await deleted.text()}`);
  sendRest();
  inFlight = await answer;
}, 120_000);
afterAll(async () => {
  doomedStream?.close();
  keptStream?.close();
  await api?.server.stop();
});

describe('a deleted tenant', () => {
  it('answers 404 to an upload URL signed before the deletion, and stores nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('too late')], { type: 'text/plain' }), 'late.txt');
    const res = await fetch(signedUnused, { method: 'POST', body: form });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(blobFiles(doomed.tenant)).toEqual([]);
  });

  it('answers 404 to an upload under way when the deletion came, and keeps none of its bytes', async () => {
    expect(inFlight.status).toBe(404);
    expect(inFlight.headers.get('content-type')).toContain('application/problem+json');
    expect(blobFiles(doomed.tenant)).toEqual([]);
  });

  it("ends the tenant's open event stream; another tenant's stream goes on", async () => {
    // Bounded below the 15 s heartbeat, whose read of the closed store would end a forgotten stream
    // too: the deletion itself must end it.
    await expect(doomedStream.take(1, 10_000)).rejects.toThrow('stream ended');
    const created = await api.create('companies', { legalName: 'Still streaming', active: true });
    const [event] = await keptStream.take(1, 30_000);
    expect(event?.data['href']).toBe(api.href('companies', created));
  });
});
