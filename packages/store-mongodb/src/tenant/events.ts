/**
 * The change events of the MongoDB tenant store: appended by a write batch, read as an `EventLog`
 * whose positions are the events' `_id`s (see `append` for why the log has no gap).
 */
import { integerEventLog } from '@odp/core';
import type { EventLog, NewChangeEvent } from '@odp/core';
import { MongoBulkWriteError } from 'mongodb';
import { isDuplicateKey } from '../server-errors.js';
import type { Session, TenantCollections } from './collections.js';

export class TenantEvents {
  constructor(private readonly c: TenantCollections) {}

  /**
   * The change events `write` appends: a position is an event's `_id`, and an event is only ever
   * inserted at the position right after an existing one (`appendEvents`), so the log has no gap
   * and a reader never passes a position that an event fills later.
   */
  readonly events: EventLog = integerEventLog({
    newest: () => this.newest({}),
    after: async (position, limit) => {
      const docs = await this.c.eventDocs
        .find({ _id: { $gt: position } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => ({
        position: doc._id,
        event: {
          type: doc.type,
          objectId: doc.objectId,
          classes: doc.classes,
          ...(doc.loserId === undefined ? {} : { loserId: doc.loserId }),
          at: doc.at,
          ...(doc.changed === undefined ? {} : { changed: doc.changed }),
        },
      }));
    },
  });

  /**
   * Appends events at the positions right after the newest event, in order. An event's `_id` is its
   * position and the server keeps `_id` unique, so inserting at `newest + 1` is the claim on that
   * position: of two writers that read the same newest event, one inserts and the other gets a
   * duplicate key for the events not yet inserted (an ordered insert stops there), re-reads the
   * newest and appends them after it. So an event is inserted only once the one before it exists,
   * on every server and without a counter: a reader that has read up to position n has seen every
   * event up to n, and nothing is inserted below n later. (Reserving numbers with a counter would
   * let a reader see n + 1 before a slower writer inserted n, and pass n for good.) In a
   * transaction, a clash is the transaction's conflict and the whole batch is retried.
   */
  async append(events: readonly NewChangeEvent[], session: Session): Promise<void> {
    let pending = events;
    while (pending.length > 0) {
      const newest = await this.newest(session);
      try {
        await this.c.eventDocs.insertMany(
          pending.map((event, index) => ({
            _id: newest + 1 + index,
            type: event.type,
            objectId: event.objectId,
            classes: [...event.classes],
            ...(event.loserId === undefined ? {} : { loserId: event.loserId }),
            at: event.at,
            ...(event.changed === undefined ? {} : { changed: [...event.changed] }),
          })),
          { ...session, ordered: true },
        );
        return;
      } catch (error) {
        if (session.session !== undefined || !isDuplicateKey(error)) throw error;
        pending = pending.slice(error instanceof MongoBulkWriteError ? error.insertedCount : 0);
      }
    }
  }

  /** The position of the newest event, 0 when the log is empty (one lookup on the `_id` index). */
  private async newest(session: Session): Promise<number> {
    const newest = await this.c.eventDocs.findOne(
      {},
      { ...session, sort: { _id: -1 }, projection: { _id: 1 } },
    );
    return newest?._id ?? 0;
  }
}
