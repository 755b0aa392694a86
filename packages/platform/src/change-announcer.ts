/**
 * What a committed write of a tenant announces, so that the tenant's event streams wake promptly in
 * every process that serves them.
 */
import type { Coordination } from '@odp/core';
import type { ChangeSignal } from '@odp/data';
import type { Logger } from './log.js';
import type { ModelSwitch } from './model-switch.js';

/**
 * How long a process gathers a tenant's writes before announcing them together, in ms: event
 * streams see a write at most this much later, and a flood of writes costs one message to every
 * process per window instead of one per write (in a profile of two api processes under a flood of
 * creates, sending those messages was about 3% of a process's CPU).
 */
export const ANNOUNCE_WINDOW_MS = 10;

/**
 * After each committed write: wakes this tenant's event streams. With a fan-out to other
 * processes, by announcing the log's head to every instance (this one included), at most once per
 * {@link ANNOUNCE_WINDOW_MS}: the head read at the end of the window covers every write of it. In
 * one process, directly (no head to read).
 */
export function changeAnnouncer(
  tenantId: string,
  coordination: Coordination,
  changes: ChangeSignal,
  log: Logger,
  models: () => ModelSwitch | undefined,
): () => void {
  let due = false;
  const announce = () => {
    due = false;
    // A tenant closed within the window: its store is gone, and so are the streams it woke.
    const switched = models();
    if (switched === undefined || switched.isClosed()) return;
    const events = switched.composition()?.data.objects.eventLog;
    if (events === undefined) return;
    events
      .head()
      .then((head) => coordination.changes.publish(tenantId, head))
      .catch((error: unknown) => {
        // Streams still poll the log on their heartbeat; the announcement only makes them prompt.
        changes.notify();
        log.error('change announcement failed', { tenantId, error: String(error) });
      });
  };
  return () => {
    if (!coordination.changes.crossesProcesses) {
      changes.notify();
      return;
    }
    if (due) return;
    due = true;
    setTimeout(announce, ANNOUNCE_WINDOW_MS);
  };
}
