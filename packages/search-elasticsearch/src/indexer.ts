/**
 * Keeps a tenant's Elasticsearch index in step with its store, from the store's event log
 * (`TenantEvents.events`).
 *
 * Each round reads the events after the cursor saved in the index the alias points at, re-reads
 * every object they name (the object of an event, the loser of a merge) and writes its entry, or
 * removes it when the object is gone, then saves the cursor the read ended at. So:
 * - it catches up after downtime: a new indexer continues from the saved cursor, and a rebuilt
 *   index starts from the position its contents were read at; the log never lets a reader pass
 *   an event that a slower writer appends later, so no change is skipped;
 * - applying an event twice is harmless (the entry is re-derived from the object as stored now),
 *   and an entry is written with the ordinal of the newest event it reflects as its version, so two
 *   indexers of one tenant (one per api instance) never put back an older state;
 * - every change that alters what a search finds emits an event (ACL re-derivations of other
 *   objects included), so the entry follows the object; a rebuild repairs anything else.
 */
import { UNRESTRICTED, searchTextOf } from '@odp/core';
import type { Model, TenantAccessRows, TenantDocuments, TenantEvents } from '@odp/core';
import type { ElasticsearchSearchIndex, VersionedChange } from './search-elasticsearch.js';

export interface SearchIndexerOptions {
  /** The change events it follows, and the objects and ACL rows they name. */
  readonly store: TenantEvents & Pick<TenantDocuments, 'getMany'> & Pick<TenantAccessRows, 'aclRowsOf'>;
  readonly index: ElasticsearchSearchIndex;
  /** The tenant's current model (it decides the searchable text). */
  readonly model: () => Model;
  /** Events read per round. */
  readonly batchSize?: number;
  /** How often a running indexer looks for events without being notified. */
  readonly pollMs?: number;
  /**
   * A failed round of the background polling (engine unreachable, a shard still recovering):
   * reported with how long rounds have been failing (since the first failure after the last round
   * that succeeded; 0 for the first), then retried at the next poll.
   */
  readonly onError?: (error: unknown, failingMs: number) => void;
}

export class SearchIndexer {
  private readonly batchSize: number;
  private running: Promise<number> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the rounds started failing (the first failure after the last success). */
  private failingSince: number | undefined;
  /**
   * How long the rounds had been failing when the last one failed (0 for the first failure),
   * measured as it failed rather than when it is reported a few microtasks later.
   */
  private failingMs = 0;

  constructor(private readonly options: SearchIndexerOptions) {
    this.batchSize = options.batchSize ?? 500;
  }

  /**
   * Applies every event after the saved position; resolves with the number of events applied once
   * the index has caught up with the events that existed when the call was made (or later). Calls
   * made while a round runs share it and ask for one more round.
   */
  catchUp(): Promise<number> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.rounds()
      .then(
        (applied) => {
          this.failingSince = undefined;
          return applied;
        },
        (error: unknown) => {
          const now = Date.now();
          this.failingSince ??= now;
          this.failingMs = now - this.failingSince;
          throw error;
        },
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Starts polling (and catches up at once); `notify` after a committed write shortens the wait. */
  start(): void {
    if (this.timer !== undefined) return;
    const tick = (): void => {
      this.catchUp()
        .catch((error: unknown) => this.report(error))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(tick, this.options.pollMs ?? 1000);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  notify(): void {
    if (this.timer === undefined) return;
    this.catchUp().catch((error: unknown) => this.report(error));
  }

  private report(error: unknown): void {
    this.options.onError?.(error, this.failingMs);
  }

  /** Stops polling and waits for the round under way. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async rounds(): Promise<number> {
    let applied = 0;
    for (;;) {
      this.again = false;
      const count = await this.round();
      applied += count;
      if (count < this.batchSize && !this.again) return applied;
    }
  }

  /** One batch of events into the index the alias points at now; the number of events applied. */
  private async round(): Promise<number> {
    const { store, index: search } = this.options;
    const target = await search.concreteIndex();
    const position = await search.position(target);
    const { events, next } = await store.events.read(position.cursor, this.batchSize);
    if (events.length === 0) return 0;
    const versions = new Map<string, number>();
    for (const event of events) {
      const ordinal = store.events.ordinal(event.cursor);
      for (const id of [event.objectId, event.loserId]) {
        if (id !== undefined) versions.set(id, Math.max(versions.get(id) ?? 0, ordinal));
      }
    }
    const model = this.options.model();
    const present = await store.getMany([...versions.keys()], UNRESTRICTED);
    const changes: VersionedChange[] = await Promise.all(
      present.map(async (object) => ({
        document: {
          id: object.id,
          classes: object.classes,
          aclIds: [...new Set((await store.aclRowsOf(object.id)).map((row) => row.acId))],
          text: searchTextOf(model, object),
        },
        version: versions.get(object.id)!,
      })),
    );
    const kept = new Set(present.map((object) => object.id));
    for (const [id, version] of versions) {
      if (!kept.has(id)) changes.push({ removeId: id, version });
    }
    await search.apply(target, changes);
    await search.savePosition(target, { cursor: next, ordinal: store.events.ordinal(next) });
    return events.length;
  }
}
