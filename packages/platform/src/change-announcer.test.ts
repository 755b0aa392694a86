import type { Coordination } from '@odp/core';
import type { ChangeSignal } from '@odp/data';
import { changeAnnouncer } from './change-announcer.js';
import { createLogger } from './log.js';
import type { ModelSwitch } from './model-switch.js';

/** A turn of the event loop passes (and the promises it settles). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

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
  const models = { composition: () => ({ data: { objects: { eventLog } } }) } as unknown as ModelSwitch;
  const changes = { notify: () => void (log.notified += 1) } as unknown as ChangeSignal;
  const announce = changeAnnouncer('t1', coordination, changes, createLogger(), () => models);
  return { announce, log };
}

describe('changeAnnouncer', () => {
  it('announces the writes of one turn to the other processes once, with the head after the last', async () => {
    const { announce, log } = announcerOver(true);
    for (const head of [1, 2, 3]) {
      log.head = head;
      announce();
    }
    expect(log.published).toEqual([]);
    await nextTurn();
    await nextTurn();
    expect(log.published).toEqual(['t1@3']);
    expect(log.reads).toBe(1);
    expect(log.notified).toBe(0);
  });

  it('announces again for the writes of a later turn', async () => {
    const { announce, log } = announcerOver(true);
    log.head = 1;
    announce();
    await nextTurn();
    await nextTurn();
    log.head = 2;
    announce();
    await nextTurn();
    await nextTurn();
    expect(log.published).toEqual(['t1@1', 't1@2']);
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
