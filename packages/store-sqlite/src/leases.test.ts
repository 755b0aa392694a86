import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteLocks } from './leases.js';
import { whileLockedElsewhere } from '../test/lock-held-elsewhere.js';

describe('SqliteLocks', () => {
  let dir: string;
  let here: SqliteLocks;
  let there: SqliteLocks;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'odp-leases-'));
    // Two processes of the machine: two connections to one file.
    here = new SqliteLocks(path.join(dir, 'leases.sqlite'));
    there = new SqliteLocks(path.join(dir, 'leases.sqlite'));
  });
  afterEach(async () => {
    await here.close();
    await there.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a lease to one holder at a time until it is released', async () => {
    const lease = await here.acquire('rebuild:t1', 30_000);
    expect(lease?.name).toBe('rebuild:t1');
    expect(await there.acquire('rebuild:t1', 30_000)).toBeNull();
    expect(await here.acquire('rebuild:t1', 30_000)).toBeNull();
    expect(await there.acquire('rebuild:t2', 30_000)).not.toBeNull();
    await lease!.release();
    expect(await there.acquire('rebuild:t1', 30_000)).not.toBeNull();
  });

  it('lets another holder take a lease that expired; the first can no longer renew or release it', async () => {
    const first = await here.acquire('flush:d', 50);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await there.acquire('flush:d', 30_000);
    expect(second).not.toBeNull();
    expect(await first!.renew()).toBe(false);
    await first!.release();
    expect(await here.acquire('flush:d', 30_000)).toBeNull();
    expect(await second!.renew()).toBe(true);
  });

  it("waits for the lock another process's connection holds without blocking the event loop", async () => {
    const file = path.join(dir, 'leases.sqlite');
    const acquired = await whileLockedElsewhere(file, () => here.acquire('import:t1', 30_000));
    const lease = acquired.result!;
    const renewed = await whileLockedElsewhere(file, () => lease.renew());
    const released = await whileLockedElsewhere(file, () => lease.release());
    // A busy handler sleeping in this thread would have let no timer run until the release.
    expect([acquired, renewed, released].map(({ turns }) => turns > 5)).toEqual([true, true, true]);
    expect(renewed.result).toBe(true);
    expect(await there.acquire('import:t1', 30_000)).not.toBeNull();
  });

  it('keeps a renewed lease past its first time', async () => {
    const lease = await here.acquire('slot:a:0', 1000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await lease!.renew()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await there.acquire('slot:a:0', 1000)).toBeNull();
  });
});
