/**
 * @odp/client against the real api (embedded, the demo tenant with its default data): every data
 * route the client covers, the change event stream with its reconnection, and typed problems. The
 * one stand-in is a fetch that cuts the first event stream after its first event, the network
 * failure a reconnection exists for (said in that test's name).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, OdpProblem, versionOf } from '@odp/client';
import type { ChangeEvent, DataObject, FilterScalar, OdpClient } from '@odp/client';
import { DEMO, startDataServer } from './data-api.js';
import type { DataApi } from './data-api.js';
import { createProfile, createProfileKey } from './support/accounts.js';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';

let api: DataApi;
let idp: Idp;
let odp: OdpClient;

beforeAll(async () => {
  idp = await startIdp();
  api = await startDataServer({ env: idp.env });
  odp = createClient({ baseUrl: api.server.baseUrl, tenant: api.tenant, apiKey: api.systemKey });
}, 60_000);
afterAll(async () => {
  await api?.server.stop();
  await idp?.stop();
});

/** A system-key client whose requests' headers are pushed to `sent`. */
function recordingClient(sent: Headers[]): OdpClient {
  return createClient({
    baseUrl: api.server.baseUrl,
    tenant: api.tenant,
    apiKey: api.systemKey,
    fetch: (input, init) => {
      sent.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  });
}

const idOf = (object: DataObject): string => object._links._self.href.slice(-36);
const names = (items: readonly DataObject[]): unknown[] => items.map((item) => item['legalName']);

/** Companies `<prefix>-0..n-1`, employeeCount 10 * i, created in order. */
async function companies(prefix: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = {
      legalName: `${prefix}-${i}`,
      employeeCount: 10 * i,
      ...(i === 0 ? {} : { website: `w${i}` }),
    };
    ids.push((await odp.create('companies', body)).id);
  }
  return ids;
}

describe('lists', () => {
  it('every filter form, sort and paging', async () => {
    const ids = await companies('Lf', 5);
    const list = async (filter: Record<string, FilterScalar | readonly string[]>, sort?: string) =>
      names(
        (await odp.list('companies', { legalName_startswith: 'Lf-', ...filter }, { sort, size: 100 })).items,
      );
    expect(await list({})).toEqual(['Lf-0', 'Lf-1', 'Lf-2', 'Lf-3', 'Lf-4']);
    expect(await list({ employeeCount: 20 })).toEqual(['Lf-2']);
    expect(await list({ employeeCount_from: 10, employeeCount_to: 30 })).toEqual(['Lf-1', 'Lf-2', 'Lf-3']);
    expect(await list({ website: null })).toEqual(['Lf-0']);
    expect(await list({ website_notempty: true }, 'employeeCount,desc')).toEqual([
      'Lf-4',
      'Lf-3',
      'Lf-2',
      'Lf-1',
    ]);
    expect(await list({ _class: ['organisations'] })).toHaveLength(5);
    const invoice = { invoiceNumber: 'LF-1', amount: 5, client: ids[3]! };
    await odp.create('invoices', invoice);
    const byRelation = async (filter: Record<string, FilterScalar | readonly string[]>) =>
      (await odp.list('invoices', filter)).items.map((item) => item['invoiceNumber']);
    expect(await byRelation({ client: 'Lf-3' })).toEqual(['LF-1']);
    expect(await byRelation({ 'client.name': 'Lf-3' })).toEqual(['LF-1']);
    expect(await byRelation({ client_href: ids[3]! })).toEqual(['LF-1']);
    expect(await byRelation({ client_startswith: 'Lf-' })).toEqual(['LF-1']);
  });

  it('pages by number and by keyset cursor, and follows next through every row', async () => {
    await companies('Pg', 5);
    const first = await odp.list('companies', { legalName_startswith: 'Pg-' }, { size: 2 });
    expect(names(first.items)).toEqual(['Pg-0', 'Pg-1']);
    const second = await first.next();
    expect(second?.links.next?.href).toContain('after=');
    expect(names(second!.items)).toEqual(['Pg-2', 'Pg-3']);
    const byNumber = await odp.list('companies', { legalName_startswith: 'Pg-' }, { size: 2, page: 2 });
    expect(names(byNumber.items)).toEqual(['Pg-4']);
    expect(await byNumber.next()).toBeNull();
    const after = new URL(first.links.next!.href, 'http://x').searchParams.get('after')!;
    const keyset = await odp.list('companies', { legalName_startswith: 'Pg-' }, { size: 2, after });
    expect(names(keyset.items)).toEqual(['Pg-2', 'Pg-3']);
    const all: unknown[] = [];
    for await (const company of odp.all('companies', { legalName_startswith: 'Pg-' }, { size: 2 }))
      all.push(company['legalName']);
    expect(all).toEqual(['Pg-0', 'Pg-1', 'Pg-2', 'Pg-3', 'Pg-4']);
  });

  it('full text with q, and global search following next', async () => {
    await companies('Quokkafirm', 3);
    const page = await odp.list('companies', {}, { q: 'quokkafirm' });
    expect(page.items).toHaveLength(3);
    const found: string[] = [];
    let search = await odp.search('quokkafirm', { classes: ['companies', 'persons'], size: 2 });
    for (;;) {
      found.push(...search.items.map((item) => item._class));
      const next = await search.next();
      if (next === null) break;
      search = next;
    }
    expect(found).toEqual(['companies', 'companies', 'companies']);
  });

  it('distinct, values and aggregations, on a list and on a related list', async () => {
    const distinct = await odp
      .collection('invoices')
      .distinct('status', { invoiceNumber_startswith: '2026-' });
    expect(distinct.values).toEqual(
      expect.arrayContaining([
        { value: 'paid', count: 1 },
        { value: 'draft', count: 1 },
      ]),
    );
    const values = await odp.collection('invoices').values('amount', { invoiceNumber: '2026-0002' });
    expect(values).toEqual([{ value: 250, link: api.href('invoices', DEMO.invoice2) }]);
    const sums = await odp
      .collection('invoices')
      .aggregations({ sum: ['amount'] }, { invoiceNumber_startswith: '2026-' });
    expect(sums).toEqual({ total: 3, sum: { amount: 5450 } });
    const related = odp.related('companies', DEMO.acme, 'invoices');
    expect(await related.aggregations({ count: ['amount'] }, { invoiceNumber_startswith: '2026-' })).toEqual({
      total: 2,
      count: { amount: 2 },
    });
    expect((await related.distinct('status', {}, 'count,desc')).values).toHaveLength(2);
    expect(
      (await related.values('amount', { invoiceNumber_startswith: '2026-' }))
        .map((entry) => entry.value)
        .sort(),
    ).toEqual([1000, 250]);
  });
});

describe('objects', () => {
  it('create answers the created object; get, patch, delete; create related', async () => {
    const created = await odp.create('companies', { legalName: 'Obj Corp', employeeCount: 3 });
    expect(created.object?.['legalName']).toBe('Obj Corp');
    expect(created.href).toBe(api.href('companies', created.id));
    expect((await odp.get('companies', created.id))['employeeCount']).toBe(3);
    const patched = await odp.patch('companies', created.id, { employeeCount: 4 });
    expect(patched.object?.['employeeCount']).toBe(4);
    const invoice = await odp
      .related('companies', created.id, 'invoices')
      .create({ invoiceNumber: 'OBJ-1', amount: 7 });
    expect(invoice.object?._links['client']).toEqual({ href: created.href, name: 'Obj Corp' });
    await odp.delete('invoices', invoice.id);
    await expect(odp.get('invoices', invoice.id)).rejects.toMatchObject({ status: 404 });
  });

  it('merge moves the links to the winner; the loser reads as the winner', async () => {
    const [winner, loser] = await companies('Mg', 2);
    await odp.create('invoices', { invoiceNumber: 'MG-1', amount: 1, client: loser! });
    const merged = await odp.merge('companies', winner!, loser!, { website: 'merged.example' });
    expect(merged.object?.['website']).toBe('merged.example');
    expect((await odp.list('invoices', { invoiceNumber: 'MG-1' })).items[0]?._links['client']).toMatchObject({
      href: api.href('companies', winner!),
    });
    expect(idOf(await odp.get('companies', loser!))).toBe(winner);
  });

  it('get own, with an access token from a function asked per request', async () => {
    await createProfile(api, { sub: 'client-ann', role: 'member', objectId: DEMO.ann });
    let asked = 0;
    const ann = createClient({
      baseUrl: api.server.baseUrl,
      tenant: api.tenant,
      accessToken: () => {
        asked += 1;
        return idp.token({ sub: 'client-ann' });
      },
    });
    expect(idOf(await ann.getOwn('persons'))).toBe(DEMO.ann);
    expect(idOf(await ann.getOwn('persons'))).toBe(DEMO.ann);
    expect(asked).toBe(2);
  });

  it('capabilities of a class, a related list and an object', async () => {
    expect(await odp.collection('invoices').capabilities()).toEqual({
      mayCreate: true,
      allowedClasses: ['invoices'],
    });
    expect((await odp.related('companies', DEMO.acme, 'invoices').capabilities()).mayCreate).toBe(true);
    expect(await odp.capabilities('invoices', DEMO.invoice1)).toEqual({ mayModify: true, mayDelete: true });
    const profile = await createProfile(api, { sub: 'client-viewer', role: 'viewer' });
    const viewer = createClient({
      baseUrl: api.server.baseUrl,
      tenant: api.tenant,
      apiKey: await createProfileKey(api, profile),
    });
    expect(await viewer.collection('invoices').capabilities()).toEqual({
      mayCreate: false,
      allowedClasses: [],
    });
    await expect(viewer.create('companies', { legalName: 'No' })).rejects.toMatchObject({ status: 403 });
  });

  it('sends If-Match and Idempotency-Key when asked (the write goes through)', async () => {
    const sent: Headers[] = [];
    const recording = recordingClient(sent);
    const created = await recording.create(
      'companies',
      { legalName: 'Idem Corp' },
      { idempotencyKey: 'k-1' },
    );
    expect(sent[0]?.get('idempotency-key')).toBe('k-1');
    // `*` matches any current version (RFC 9110), so the patch applies whether or not the api reads If-Match.
    const patched = await recording.patch('companies', created.id, { website: 'w' }, { ifMatch: '*' });
    expect(sent[1]?.get('if-match')).toBe('*');
    expect(patched.object?.['website']).toBe('w');
  });
});

describe('idempotent creates', () => {
  it('a create retried with its idempotencyKey answers the first object and creates nothing', async () => {
    const idempotencyKey = `retry-${Date.now()}`;
    const legalName = `Idem ${idempotencyKey}`;
    const first = await odp.create('companies', { legalName }, { idempotencyKey });
    const again = await odp.create('companies', { legalName }, { idempotencyKey });
    expect(again).toEqual(first);
    expect((await odp.list('companies', { legalName })).items).toHaveLength(1);
    await expect(
      odp.create('companies', { legalName: `${legalName} 2` }, { idempotencyKey }),
    ).rejects.toMatchObject({ status: 422, type: 'urn:odp:problem:idempotency-key-reused' });
  });
});

describe('conditional and batch writes', () => {
  it('If-Match with the version read applies once; the stale version is a 412 naming the current one', async () => {
    const { object } = await odp.create('companies', { legalName: 'Cond Corp' });
    const read = object!;
    const first = await odp.patch('companies', idOf(read), { website: 'one' }, { ifMatch: versionOf(read) });
    const stale = await odp
      .patch('companies', idOf(read), { website: 'two' }, { ifMatch: versionOf(read) })
      .catch((caught: unknown) => caught);
    expect(stale).toBeInstanceOf(OdpProblem);
    expect(stale).toMatchObject({ status: 412, etag: versionOf(first.object!) });
    expect((await odp.get('companies', idOf(read)))['website']).toBe('one');
    await expect(odp.delete('companies', idOf(read), { ifMatch: versionOf(read) })).rejects.toMatchObject({
      status: 412,
    });
  });

  it('refresh answers the same object while unchanged (304), and the new one after a write', async () => {
    const { object } = await odp.create('companies', { legalName: 'Fresh Corp' });
    expect(await odp.refresh('companies', object!)).toBe(object);
    await odp.patch('companies', idOf(object!), { employeeCount: 5 });
    expect((await odp.refresh('companies', object!))['employeeCount']).toBe(5);
  });

  it('a batch writes every operation, or none with the index of the refused one', async () => {
    const { id } = await odp.create('companies', { legalName: 'Batch Corp' });
    const results = await odp.batch((ops) => [
      ops.create('companies', { legalName: 'Batch Two' }),
      ops.createRelated('companies', id, 'invoices', { invoiceNumber: 'BT-1', amount: 3 }),
      ops.patch('companies', id, { employeeCount: 2 }),
    ]);
    expect(results.map((result) => result.status)).toEqual([201, 201, 204]);
    expect((await odp.get('invoices', results[1]!.id!))['invoiceNumber']).toBe('BT-1');
    const refused = await odp
      .batch((ops) => [
        ops.create('companies', { legalName: 'Batch Three' }),
        ops.create('invoices', { amount: 'lots' }),
      ])
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 400, operation: 1 });
    expect((refused as OdpProblem).fieldError('amount')).toEqual(expect.any(String));
    expect((await odp.list('companies', { legalName: 'Batch Three' })).items).toEqual([]);
  });
});

describe('problems', () => {
  it('a refused write is an OdpProblem with its per-field errors', async () => {
    const error = await odp.create('invoices', { amount: 'lots' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OdpProblem);
    const problem = error as OdpProblem;
    expect(problem.status).toBe(400);
    expect(problem.type).toMatch(/^urn:odp:problem:/);
    expect(problem.fieldError('amount')).toEqual(expect.any(String));
    expect(problem.errors.map((entry) => entry.field)).toEqual(['amount']);
  });

  it('a bad cursor, an unknown class and a wrong key', async () => {
    await expect(odp.list('companies', {}, { after: 'nonsense' })).rejects.toMatchObject({
      status: 400,
      errors: [{ field: 'after' }],
    });
    await expect(odp.list('nothings')).rejects.toMatchObject({ status: 404 });
    const stranger = createClient({ baseUrl: api.server.baseUrl, tenant: api.tenant, apiKey: 'odp_wrong' });
    await expect(stranger.get('companies', DEMO.acme)).rejects.toMatchObject({ status: 401 });
  });
});

describe('files, reports and exports', () => {
  it('upload, attach and download: the same bytes', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.4 client test');
    const document = await odp.create('documents', {
      title: 'Client doc',
      file: await odp.upload(bytes, 'a.pdf'),
    });
    const file = document.object?.['file'] as { href: string; fileName: string; size: number };
    expect(file).toMatchObject({ fileName: 'a.pdf', size: bytes.length });
    expect(await (await odp.download(file.href)).text()).toBe('%PDF-1.4 client test');
    const notes = { data: 'plain words', fileName: 'notes.txt' };
    await odp.attach('documents', document.id, 'attachments', notes, { append: true });
    const attached = await odp.attach('documents', document.id, 'attachments', notes, { append: true });
    const [, attachment] = attached.object?.['attachments'] as { href: string }[];
    const replaced = await odp.attach('documents', document.id, 'file', {
      data: '%PDF-1.4 new',
      fileName: 'b.pdf',
    });
    expect(replaced.object?.['file']).toMatchObject({ fileName: 'b.pdf' });
    await expect(odp.download(file.href)).rejects.toMatchObject({ status: 404 }); // replaced: its bytes are gone
    expect(await (await odp.download((replaced.object?.['file'] as { href: string }).href)).text()).toBe(
      '%PDF-1.4 new',
    );
    expect(await (await odp.download(attachment!.href)).text()).toBe('plain words');
  });

  it('a report document and an Excel export, as signed URLs', async () => {
    const report = await odp.report('invoices', DEMO.invoice1, 'invoice', 'nl');
    expect(await (await fetch(report)).text()).toContain('2026-0001');
    const workbook = await odp.collection('invoices').excel({ status: 'paid' }, 'amount,desc');
    expect(
      Buffer.from(await (await fetch(workbook)).arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    const related = await odp.related('companies', DEMO.acme, 'invoices').excel();
    expect((await fetch(related)).status).toBe(200);
  });

  it('an import of an uploaded CSV, followed to its end', async () => {
    const file = await odp.upload('legalName,employeeCount\nImp One,1\nImp Two,2\n', 'companies.csv');
    let status = await odp.import({ file, typeName: 'companies' });
    while (status.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await odp.importStatus(status.id);
    }
    expect(status).toMatchObject({ state: 'completed', created: 2, failed: 0 });
    // An import writes its rows concurrently: the list names both, in no particular order.
    expect(names((await odp.list('companies', { legalName_startswith: 'Imp ' })).items).sort()).toEqual([
      'Imp One',
      'Imp Two',
    ]);
  });
});

describe('change events', () => {
  /** The first `n` events of `stream` with `type`, while `write` runs. */
  async function collect(
    stream: AsyncGenerator<ChangeEvent>,
    n: number,
    write: () => Promise<void>,
  ): Promise<ChangeEvent[]> {
    const events: ChangeEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        events.push(event);
        if (events.length === n) break;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the stream has connected
    await write();
    await reading;
    return events;
  }

  it('streams changes with the credential header, values included', async () => {
    const events = await collect(odp.events({ values: true }), 2, async () => {
      const { id } = await odp.create('companies', { legalName: 'Ev One' });
      await odp.patch('companies', id, { employeeCount: 9 });
    });
    expect(events.map((event) => event.type)).toEqual(['create', 'update']);
    expect(events[1]).toMatchObject({ changed: ['employeeCount'], values: { employeeCount: 9 } });
  });

  it('streams through a stream token without a credential header', async () => {
    const sent: Headers[] = [];
    const browserLike = recordingClient(sent);
    const events = await collect(browserLike.events({ viaToken: true }), 1, async () => {
      await odp.create('companies', { legalName: 'Ev Token' });
    });
    expect(events[0]?.type).toBe('create');
    expect(sent.map((headers) => headers.has('x-api-key'))).toEqual([true, false]);
    const token = await odp.streamToken(true);
    expect(token.href).toContain('values=true');
  });

  it('reconnects from Last-Event-ID after the connection drops (a fetch that cuts the first stream stands in for the network)', async () => {
    const connections: (string | null)[] = [];
    const flaky = createClient({
      baseUrl: api.server.baseUrl,
      tenant: api.tenant,
      apiKey: api.systemKey,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).includes('/eventStream')) return response;
        connections.push(new Headers(init?.headers).get('last-event-id'));
        if (connections.length > 1) return response;
        return new Response(cutAfterFirstEvent(response.body!), {
          status: response.status,
          headers: response.headers,
        });
      },
    });
    const stream = flaky.events();
    const events = await collect(stream, 3, async () => {
      for (const name of ['Rc One', 'Rc Two', 'Rc Three']) await odp.create('companies', { legalName: name });
    });
    expect(events.map((event) => event.href.slice(-36))).toHaveLength(
      new Set(events.map((event) => event.id)).size,
    );
    const created = await Promise.all(
      events.map(async (event) => (await odp.get('companies', event.href.slice(-36)))['legalName']),
    );
    expect(created).toEqual(['Rc One', 'Rc Two', 'Rc Three']);
    expect(connections).toEqual([null, events[0]!.id]);
  }, 20_000);
});

/** The stream up to and including its first event (a blank line after a `data:` line), then its end. */
/**
 * The stream up to the end of its first event, then closed: a connection dropped right after one
 * event (also when that event shares a chunk with the next one, which is cut off).
 */
function cutAfterFirstEvent(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let seen = '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const before = seen.length;
      seen += decoder.decode(value, { stream: true });
      const end = /data:[^\n]*\n\n/.exec(seen);
      if (end === null) {
        controller.enqueue(value);
        return;
      }
      controller.enqueue(new TextEncoder().encode(seen.slice(before, end.index + end[0].length)));
      await reader.cancel();
      controller.close();
    },
  });
}

describe('types from the model', () => {
  it('GET /metadata/{tenant}/types.d.ts answers what odp types writes', async () => {
    const res = await fetch(`${api.server.baseUrl}/metadata/${api.tenant}/types.d.ts`, {
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/typescript/);
    const served = await res.text();
    expect(served).toContain('export interface Schema {');
    expect(served).toContain('export type InvoiceStatus = "draft" | "sent" | "paid" | "cancelled";');
    expect((await api.server.odp(['types', '--tenant', api.tenant]))['types']).toBe(served);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-types-'));
    try {
      await api.server.odp(['types', '--tenant', api.tenant, '--out', path.join(dir, 'odp.d.ts')]);
      expect(readFileSync(path.join(dir, 'odp.d.ts'), 'utf8')).toBe(served);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
