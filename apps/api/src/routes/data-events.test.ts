import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import type { Account } from '@odp/core';
import { ChangeSignal, DataResources, unrestrictedPolicy } from '@odp/data';
import { loadModelRepository } from '@odp/model-loader';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import { TenantEventStreams } from '@odp/platform';
import { eventStream } from './data-events.js';

/** The event stream's framing and heartbeat, on a bare express app with the example CRM. */
describe('eventStream', () => {
  const tenantId = '7d1b0b0e-0000-4000-8000-0000000000aa';
  const system: Account = { kind: 'system', tenantId };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-events-'));
  const store = openSqliteTenantStore({ file: path.join(dir, 'documents.sqlite') });
  const changes = new ChangeSignal();
  let data: DataResources;
  let server: ReturnType<express.Express['listen']>;
  let base: string;

  beforeAll(async () => {
    const { model } = await loadModelRepository(path.resolve(__dirname, '../../../../examples/models/crm'));
    if (!model) throw new Error('model refused');
    await store.applyModel(model);
    data = new DataResources({
      tenantId,
      model,
      store,
      access: unrestrictedPolicy(model),
      onChange: () => changes.notify(),
    });
    const app = express();
    app.get(
      '/events',
      (req, res) =>
        void eventStream(req, res, {
          account: system,
          objects: data.objects,
          changes,
          streams: new TenantEventStreams(8),
          turn: (work) => work(),
          heartbeatMs: 100,
        }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function read(
    body: ReadableStreamDefaultReader<Uint8Array>,
    until: (text: string) => boolean,
  ): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    while (!until(text)) {
      const chunk = await body.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    return text;
  }

  it('sends heartbeat comments and the events of writes', async () => {
    const abort = new AbortController();
    const res = await fetch(`${base}/events`, { signal: abort.signal });
    const body = res.body?.getReader();
    if (!body) throw new Error('no body');
    const opening = await read(body, (text) => text.includes(': heartbeat'));
    expect(opening).toContain('retry: 3000');
    expect(opening).toContain(': heartbeat\n\n');
    await data.create(system, 'companies', { legalName: 'Woken' });
    const event = await read(body, (text) => text.includes('event: create'));
    expect(event).toMatch(
      /id: \d+\nevent: create\ndata: \{"type":"create","href":"\/data\/[^"]+\/companies\//,
    );
    abort.abort();
  });

  it('sends an event logged without changed field names (before they were kept) without changed or values', async () => {
    const id = (await data.create(system, 'companies', { legalName: 'Older' })).id;
    const abort = new AbortController();
    const res = await fetch(`${base}/events?values=true`, { signal: abort.signal });
    const body = res.body?.getReader();
    if (!body) throw new Error('no body');
    await read(body, (text) => text.includes(': connected'));
    const at = '2025-01-01T00:00:00.000Z';
    await store.write({
      events: [{ type: 'update', objectId: id, classes: ['crm.company', 'crm.organisation'], at }],
    });
    await data.patch(system, 'companies', id, { phone: '5' });
    const text = await read(body, (received) => received.includes('"changed"'));
    const frames = text.split('\n').filter((line) => line.startsWith('data: '));
    expect(frames.map((line) => JSON.parse(line.slice(6)) as unknown)).toEqual([
      {
        type: 'update',
        href: `/data/${tenantId}/companies/${id}`,
        classes: ['companies', 'organisations'],
        at,
      },
      {
        type: 'update',
        href: `/data/${tenantId}/companies/${id}`,
        classes: ['companies', 'organisations'],
        at: expect.any(String),
        changed: ['phone'],
        values: { phone: '5' },
      },
    ]);
    abort.abort();
  });
});
