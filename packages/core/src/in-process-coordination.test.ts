import { createInProcessCoordination } from './in-process-coordination.js';

describe('createInProcessCoordination', () => {
  it('takes its leases from shared locks when given, so two coordinations have one holder per lease', async () => {
    const machine = createInProcessCoordination().locks;
    const one = createInProcessCoordination(machine);
    const other = createInProcessCoordination(machine);
    const lease = await one.locks.acquire('rebuild:t1', 30_000);
    expect(lease).not.toBeNull();
    expect(await other.locks.acquire('rebuild:t1', 30_000)).toBeNull();
    await lease!.release();
    expect(await other.locks.acquire('rebuild:t1', 30_000)).not.toBeNull();
  });

  it('keeps leases of its own without shared locks', async () => {
    const one = createInProcessCoordination();
    const other = createInProcessCoordination();
    expect(await one.locks.acquire('rebuild:t1', 30_000)).not.toBeNull();
    expect(await other.locks.acquire('rebuild:t1', 30_000)).not.toBeNull();
  });
});
