import type { Coordination } from '@odp/core';
import type { ChangeSignal } from '@odp/data';
import { ANNOUNCE_WINDOW_MS, changeAnnouncer } from './change-announcer.js';
import { createLogger } from './log.js';
import type { ModelSwitch } from './model-switch.js';

// The window is a timer: the clock is faked, so a loaded machine cannot let it pass early or late.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** The announcement window passes (and the promises its announcement starts settle). */
const windowPasses = () => jest.advanceTimersByTimeAsync(ANNOUNCE_WINDOW_MS);

function announcerOver(crossesProcesses: boolean) {
  const log = { head: 0, published: [] as string[], notified: 0, reads: 0 };
  const coordination = {
    changes: {
      crossesProcesses,
      publish: async (tenantId: string, head: string) => void log.published.push(`${tenantId}@${head}`),
    },
  } as unknown as Coordination;
  const eventLog = {
    head: async () => {
      log.reads += 1;
      return String(log.head);
    },
  };
  const models = {
    closed: false,
    isClosed() {
      return this.closed;
    },
    composition: () => ({ data: { objects: { eventLog } } }),
  };
  const changes = { notify: () => void (log.notified += 1) } as unknown as ChangeSignal;
  const announce = changeAnnouncer(
    't1',
    coordination,
    changes,
    createLogger(),
    () => models as unknown as ModelSwitch,
  );
  return { announce, log, models };
}

describe('changeAnnouncer', () => {
  it('announces the writes of one window to the other processes once, with the head after the last', async () => {
    const { announce, log } = announcerOver(true);
    for (const head of [1, 2, 3]) {
      log.head = head;
      announce();
      // The writes come a millisecond apart, within the window.
      await jest.advanceTimersByTimeAsync(1);
    }
    expect(log.published).toEqual([]);
    await windowPasses();
    expect(log.published).toEqual(['t1@3']);
    expect(log.reads).toBe(1);
    expect(log.notified).toBe(0);
  });

  it('announces again for the writes of a later window', async () => {
    const { announce, log } = announcerOver(true);
    log.head = 1;
    announce();
    await windowPasses();
    log.head = 2;
    announce();
    await windowPasses();
    expect(log.published).toEqual(['t1@1', 't1@2']);
  });

  it('drops the announcement of a tenant closed within the window, reading no head', async () => {
    const { announce, log, models } = announcerOver(true);
    announce();
    models.closed = true;
    await windowPasses();
    expect(log.published).toEqual([]);
    expect(log.reads).toBe(0);
  });

  it('wakes the streams of its own process at once when no other process listens', () => {
    const { announce, log } = announcerOver(false);
    announce();
    announce();
    expect(log.notified).toBe(2);
    expect(log.published).toEqual([]);
    expect(log.reads).toBe(0);
  });
});
