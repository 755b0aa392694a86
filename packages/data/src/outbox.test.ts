import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewJob } from '@odp/core';
import { contractModel } from '@odp/testkit';
import { openSqliteJobQueue, openSqliteTenantStore } from '@odp/store-sqlite';
import type { SqliteJobQueue, SqliteTenantStore } from '@odp/store-sqlite';
import { OutboxRelay } from './outbox.js';

let dir: string;
let store: SqliteTenantStore;
let queue: SqliteJobQueue;
/** The batches the queue was given, in order (the real queue's enqueue, observed). */
let enqueued: string[][];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-outbox-relay-'));
  store = openSqliteTenantStore({ file: path.join(dir, 'tenant.sqlite') });
  await store.applyModel(contractModel);
  queue = openSqliteJobQueue(path.join(dir, 'jobs.sqlite'));
  enqueued = [];
});
afterEach(async () => {
  await store.close();
  await queue.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The real queue, observed: the batches it is given, in order; the first enqueue waits until
 * `release` is called (`entered` resolves when it started), so a relay is known to be running.
 */
function gatedQueue() {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let enter = () => {};
  const entered = new Promise<void>((resolve) => (enter = resolve));
  return {
    release,
    entered,
    enqueue: async (jobs: readonly NewJob[]) => {
      enqueued.push(jobs.map((job) => job.id));
      enter();
      await gate;
      await queue.enqueue(jobs);
    },
  };
}

const outboxJob = (id: string): NewJob => ({
  id,
  tenantId: 'relay-tenant',
  kind: 'gateway',
  objectId: null,
  payload: { script: 'notify' },
  createdAt: '2024-01-01T00:00:00.000Z',
});

const queued = async (id: string) => (await queue.get(id))?.id;

describe('OutboxRelay', () => {
  it('resolves each call once its jobs are in the queue, one relay for the calls made while one runs', async () => {
    const gated = gatedQueue();
    const relay = new OutboxRelay(store, gated);
    await store.write({ jobs: [outboxJob('a')] });
    const first = relay.relay();
    await gated.entered;
    // Written while the first relay runs (it read the outbox already): the calls wait for the
    // relay after it, which the two share.
    await store.write({ jobs: [outboxJob('b')] });
    const second = relay.relay();
    await store.write({ jobs: [outboxJob('c')] });
    const third = relay.relay();
    expect(third).toBe(second);
    gated.release();
    // The first relay reads the outbox again after its batch and moves the jobs of b and c too;
    // the relay after it finds none.
    expect(await first).toBe(3);
    expect(await second).toBe(0);
    expect(enqueued).toEqual([['a'], ['b', 'c']]);
    for (const id of ['a', 'b', 'c']) expect(await queued(id)).toBe(id);
    expect(await store.outbox(10)).toEqual([]);
  });

  it('serves the calls made before a relay reads the outbox with that relay, in one enqueue', async () => {
    const gated = gatedQueue();
    const relay = new OutboxRelay(store, gated);
    await store.write({ jobs: [outboxJob('a')] });
    const first = relay.relay();
    await store.write({ jobs: [outboxJob('b')] });
    expect(relay.relay()).toBe(first);
    // The relay starts on the next turn of the event loop: nothing was read yet.
    expect(enqueued).toEqual([]);
    gated.release();
    expect(await first).toBe(2);
    expect(enqueued).toEqual([['a', 'b']]);
    expect(await store.outbox(10)).toEqual([]);
  });

  it('starts a new relay for a call made after the last one ended, also after a failed one', async () => {
    let fail = true;
    const relay = new OutboxRelay(store, {
      enqueue: async (jobs) => {
        if (fail) throw new Error('queue down');
        await queue.enqueue(jobs);
      },
    });
    await store.write({ jobs: [outboxJob('a')] });
    await expect(relay.relay()).rejects.toThrow('queue down');
    expect(await store.outbox(10)).toHaveLength(1);
    fail = false;
    expect(await relay.relay()).toBe(1);
    expect(await queued('a')).toBe('a');
    expect(await relay.relay()).toBe(0);
  });
});
