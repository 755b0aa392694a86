/**
 * The JobQueue contract, backend-neutral: every adapter runs it from its own test file
 * (`describeJobQueueContract('sqlite', open)`). `open` returns a fresh, empty queue per call; two
 * calls with the same `shared` key must return two handles on the same queue (two processes'
 * connections), so the no-duplicate rule is checked across handles.
 */
import type { JobQueue, NewJob } from '@odp/core';
import { perCase } from './per-case.js';

const TENANT = 'b0b0b0b0-0000-4000-8000-000000000001';
const OTHER = 'b0b0b0b0-0000-4000-8000-000000000002';
const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function job(n: number, overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job-${n}`,
    tenantId: TENANT,
    kind: 'gateway',
    objectId: `object-${n % 2}`,
    payload: { n, text: 'é "quoted"' },
    createdAt: at(n - 1000).toISOString(),
    ...overrides,
  };
}

export function describeJobQueueContract(name: string, open: (shared?: string) => Promise<JobQueue>): void {
  describe(`JobQueue contract: ${name}`, () => {
    const queue = perCase(
      () => open(),
      (opened) => opened.close(),
    );
    describeClaimsContract(queue);
    describeHousekeepingContract(queue, open);
  });
}

/** Claims, leases, delays, retries and final failures of jobs. */
function describeClaimsContract(queue: JobQueue): void {
  it('hands out a job once, with its payload, counting the attempt', async () => {
    await queue.enqueue([job(1)]);
    const claimed = await queue.claim('w1', 30_000, T0);
    expect(claimed).toMatchObject({
      id: 'job-1',
      tenantId: TENANT,
      kind: 'gateway',
      objectId: 'object-1',
      payload: { n: 1, text: 'é "quoted"' },
      status: 'running',
      attempts: 1,
      leaseUntil: at(30_000).toISOString(),
      lastError: null,
    });
    expect(await queue.claim('w2', 30_000, at(1000))).toBeNull();
    expect(await queue.complete('job-1', 'w1', at(2000))).toBe(true);
    expect(await queue.get('job-1')).toMatchObject({ status: 'done', attempts: 1, leaseUntil: null });
    expect(await queue.claim('w2', 30_000, at(60_000))).toBeNull();
  });

  it('keeps a payload whose keys hold dots and dollar signs (webhook headers, parameters)', async () => {
    const payload = { parameters: { 'header.X-Source': 'odp', $ref: '#/a', 'a.b': { 'c.d': [1] } } };
    await queue.enqueue([job(1, { payload })]);
    expect((await queue.claim('w1', 30_000, T0))?.payload).toEqual(payload);
    expect((await queue.get('job-1'))?.payload).toEqual(payload);
  });

  it('ignores a job enqueued again under the same id, whatever its status', async () => {
    await queue.enqueue([job(1)]);
    await queue.enqueue([job(1, { payload: { n: 99 } })]);
    const claimed = await queue.claim('w1', 1000, T0);
    expect(claimed?.payload).toEqual({ n: 1, text: 'é "quoted"' });
    await queue.complete('job-1', 'w1', T0);
    await queue.enqueue([job(1)]);
    expect(await queue.claim('w1', 1000, T0)).toBeNull();
  });

  it('claims the earliest due job first', async () => {
    await queue.enqueue([job(1), job(2), job(3)]);
    const first = await queue.claim('w', 1000, T0);
    await queue.fail(first!.id, 'w', 'boom', at(5000), T0);
    const order = [];
    for (
      let claimed = await queue.claim('w', 1000, T0);
      claimed;
      claimed = await queue.claim('w', 1000, T0)
    ) {
      order.push(claimed.id);
      await queue.complete(claimed.id, 'w', T0);
    }
    expect(order).toEqual(['job-2', 'job-3']);
    expect((await queue.claim('w', 1000, at(5000)))?.id).toBe('job-1');
  });

  it('holds a delayed job until its run time', async () => {
    await queue.enqueue([job(1, { runAt: at(60_000).toISOString() }), job(2)]);
    expect(await queue.get('job-1')).toMatchObject({ status: 'pending', runAt: at(60_000).toISOString() });
    expect((await queue.claim('w', 1000, T0))?.id).toBe('job-2');
    await queue.complete('job-2', 'w', T0);
    expect(await queue.claim('w', 1000, at(59_999))).toBeNull();
    expect((await queue.claim('w', 1000, at(60_000)))?.id).toBe('job-1');
  });

  it('re-offers a job whose lease expired, and refuses the late worker', async () => {
    await queue.enqueue([job(1)]);
    await queue.claim('crashed', 10_000, T0);
    expect(await queue.claim('w2', 10_000, at(9_999))).toBeNull();
    const again = await queue.claim('w2', 10_000, at(10_000));
    expect(again).toMatchObject({ id: 'job-1', attempts: 2, status: 'running' });
    expect(await queue.complete('job-1', 'crashed', at(10_001))).toBe(false);
    expect(await queue.fail('job-1', 'crashed', 'late', null, at(10_001))).toBe(false);
    expect(await queue.complete('job-1', 'w2', at(10_002))).toBe(true);
    expect(await queue.get('job-1')).toMatchObject({ status: 'done', attempts: 2, lastError: null });
  });

  it('reschedules a failure and gives up for good without a retry time', async () => {
    await queue.enqueue([job(1)]);
    await queue.claim('w', 1000, T0);
    expect(await queue.fail('job-1', 'w', 'HTTP 503', at(10_000), at(100))).toBe(true);
    expect(await queue.get('job-1')).toMatchObject({
      status: 'pending',
      attempts: 1,
      runAt: at(10_000).toISOString(),
      lastError: 'HTTP 503',
      leaseUntil: null,
    });
    expect(await queue.claim('w', 1000, at(9_999))).toBeNull();
    await queue.claim('w', 1000, at(10_000));
    expect(await queue.fail('job-1', 'w', 'HTTP 404', null, at(10_001))).toBe(true);
    expect(await queue.get('job-1')).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastError: 'HTTP 404',
    });
    expect(await queue.claim('w', 1000, at(10_000_000))).toBeNull();
  });
}

/** Pruning, listing and deleting jobs; one claimer per job among concurrent ones. */
function describeHousekeepingContract(queue: JobQueue, open: (shared?: string) => Promise<JobQueue>): void {
  it('prunes finished jobs last changed before a time, never pending or running ones', async () => {
    await queue.enqueue([job(1), job(2), job(3), job(4)]);
    await queue.claim('w', 1000, T0);
    await queue.complete('job-1', 'w', at(10));
    await queue.claim('w', 1000, T0);
    await queue.fail('job-2', 'w', 'gone', null, at(20));
    await queue.claim('w', 1000, T0);
    await queue.complete('job-3', 'w', at(5_000));
    expect(await queue.prune(at(1_000))).toBe(2);
    expect((await queue.list({ tenantId: TENANT, limit: 10 })).map((j) => j.id)).toEqual(['job-4', 'job-3']);
    expect(await queue.prune(at(1_000_000))).toBe(1);
    expect((await queue.list({ tenantId: TENANT, limit: 10 })).map((j) => j.id)).toEqual(['job-4']);
  });

  it('lists the jobs of a tenant or of one object, newest first', async () => {
    await queue.enqueue([job(1), job(2), job(3), job(4, { tenantId: OTHER })]);
    expect((await queue.list({ tenantId: TENANT, limit: 10 })).map((j) => j.id)).toEqual([
      'job-3',
      'job-2',
      'job-1',
    ]);
    expect((await queue.list({ tenantId: TENANT, limit: 2 })).map((j) => j.id)).toEqual(['job-3', 'job-2']);
    expect(
      (await queue.list({ tenantId: TENANT, objectId: 'object-1', limit: 10 })).map((j) => j.id),
    ).toEqual(['job-3', 'job-1']);
    expect((await queue.list({ tenantId: OTHER, limit: 10 })).map((j) => j.id)).toEqual(['job-4']);
    expect(await queue.get('job-9')).toBeNull();
  });

  it('deletes every job of one tenant, whatever its status, and none of another', async () => {
    await queue.enqueue([job(1), job(2), job(3, { tenantId: OTHER })]);
    const claimed = await queue.claim('w1', 30_000, T0);
    expect(await queue.deleteTenant(TENANT)).toBe(2);
    expect(await queue.list({ tenantId: TENANT, limit: 10 })).toEqual([]);
    expect((await queue.list({ tenantId: OTHER, limit: 10 })).map((j) => j.id)).toEqual(['job-3']);
    expect(claimed?.id).toBe('job-1');
    expect(await queue.complete('job-1', 'w1', T0)).toBe(false);
  });

  it('gives each job to one of several concurrent claimers', async () => {
    const key = `shared-${Math.random()}`;
    const handles = [await open(key), await open(key), await open(key)];
    try {
      const jobs = Array.from({ length: 30 }, (_, i) => job(i + 1));
      await handles[0]!.enqueue(jobs);
      const claimed: string[] = [];
      await Promise.all(
        handles.map(async (handle, index) => {
          for (let next = await handle.claim(`w${index}`, 60_000, T0); next;) {
            claimed.push(next.id);
            await handle.complete(next.id, `w${index}`, T0);
            next = await handle.claim(`w${index}`, 60_000, T0);
          }
        }),
      );
      expect(claimed.sort()).toEqual(jobs.map((j) => j.id).sort());
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });
}
