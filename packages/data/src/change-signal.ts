/**
 * Wakes the event streams of one tenant when a write committed change events: streams then read
 * the persisted log (`TenantEvents.events`), so the signal carries no data and a missed wake-up only delays
 * delivery until the next heartbeat poll.
 */
export class ChangeSignal {
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}
