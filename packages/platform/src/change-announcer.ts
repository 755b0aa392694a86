/**
 * What a committed write of a tenant announces, so that the tenant's event streams wake promptly in
 * every process that serves them.
 */
import type { Coordination } from '@odp/core';
import type { ChangeSignal } from '@odp/data';
import type { Logger } from './log.js';
import type { ModelSwitch } from './model-switch.js';

/**
 * After each committed write: wakes this tenant's event streams. With a fan-out to other
 * processes, by announcing the log's head to every instance (this one included), once per turn of
 * the event loop however many writes committed in it: the head read at the end of the turn covers
 * them all, and a message to every process per write cost an api process of two a few percent of
 * its CPU under a flood of creates. In one process, directly (no head to read).
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
    const events = models()?.composition()?.data.objects.eventLog;
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
    setImmediate(announce);
  };
}
