/**
 * The event log port: a tenant's data-change events in one total order, addressed by opaque
 * cursors. Writes append events through `WriteBatch.events`, in the same atomic write as the change
 * they report (an event exists exactly when its change does); readers follow the log with
 * {@link EventLog.read} from a cursor they kept (an event stream's `Last-Event-ID`, a search
 * indexer's saved position) or from {@link EventLog.head} (a new event stream).
 *
 * The guarantee every adapter gives: a reader that follows the log from any cursor it was handed
 * receives every event appended after that cursor, each once and in log order, even while writers
 * on several processes append concurrently. An event becomes readable only once every event before
 * it in the log is readable, so a reader never moves past an event that appears later.
 *
 * Adapters: the SQLite tenant store (one writer at a time, positions from its row ids) and
 * `@odp/store-mongodb` (an event is inserted at the position right after the newest one its writer
 * read, the unique `_id` being the claim; see its README). Contract suite:
 * `describeEventLogContract` in `@odp/testkit`.
 */

import { ValidationError } from './errors.js';

/**
 * A position in one tenant's event log: the position of an event, or the log's start. Opaque: a
 * caller keeps it, hands it back and compares it for equality, and never computes another cursor
 * from it (the log decides what follows a position). Cursors are short printable ASCII without
 * spaces or line breaks, so they travel as an SSE `id:` and in a `Last-Event-ID` header.
 */
export type EventCursor = string;

/** A data-change event, as read from the log. */
export interface ChangeEvent {
  /** This event's position: reading after it continues with the next event. */
  readonly cursor: EventCursor;
  readonly type: 'create' | 'update' | 'delete' | 'merge';
  readonly objectId: string;
  /** Qualified classes of the object at the time of the change. */
  readonly classes: readonly string[];
  /** For merges: the id of the object merged away. */
  readonly loserId?: string;
  readonly at: string;
  /**
   * Names (never values) of the fields and forward relations of the object whose values the write
   * changed (`update`) or set to a non-empty value (`create`), formulas the write recalculated
   * included; empty when the write changed none (an update for re-derived access rows). Absent on
   * events written before the log recorded it, and on `delete` and `merge` events. Readers filter
   * it by what the reading account may see.
   */
  readonly changed?: readonly string[];
}

/** An event as a write appends it (the log assigns its position). */
export type NewChangeEvent = Omit<ChangeEvent, 'cursor'>;

export interface EventPage {
  /** At most the requested number of events, oldest first. */
  readonly events: readonly ChangeEvent[];
  /**
   * Where the next read continues: the cursor of the last event returned, or `after` itself when
   * there was none. Equal to `after` exactly when the read found nothing new.
   */
  readonly next: EventCursor;
}

export interface EventLog {
  /**
   * The cursor of the newest readable event, or the log's start when it is empty: reading after it
   * returns only events appended later. Costs one indexed lookup, however long the log.
   */
  head(): Promise<EventCursor>;
  /**
   * Up to `limit` events after `after` (null: from the log's start), oldest first. `after` must be
   * a cursor of this log (from `head`, an event, a page's `next`, or `cursorOf`); a cursor past the
   * head is allowed and returns nothing until the log grows past it.
   */
  read(after: EventCursor | null, limit: number): Promise<EventPage>;
  /**
   * `text` as a cursor of this log, or null when it cannot be one (a client's `Last-Event-ID`:
   * surrounding white space is ignored, anything else malformed is refused with null).
   */
  cursorOf(text: string): EventCursor | null;
  /**
   * A safe integer that grows strictly along the log (never reused, not necessarily consecutive),
   * for engines that keep the newest of several writes by a number: Elasticsearch external
   * versions of the entries the search indexer derives from events. Not a position to compute with.
   */
  ordinal(cursor: EventCursor): number;
}

/** An event at a position of a log whose positions are positive integers. */
export interface PositionedEvent {
  readonly position: number;
  readonly event: NewChangeEvent;
}

/**
 * The {@link EventLog} of a store whose positions are positive integers, strictly increasing along
 * the log (both store adapters). A cursor is the decimal digits of a position, `0` the log's start:
 * so the `id` an event stream sent when it carried sequence numbers (the same digits) stays a valid
 * `Last-Event-ID`. The store supplies the two lookups; whether positions have gaps is its business.
 */
export function integerEventLog(store: {
  /** The newest readable position, 0 when the log is empty. */
  newest(): Promise<number>;
  /** Up to `limit` events at positions above `position`, by position. */
  after(position: number, limit: number): Promise<readonly PositionedEvent[]>;
}): EventLog {
  const position = (text: string): number | null => {
    const trimmed = text.trim();
    if (!/^\d{1,16}$/.test(trimmed)) return null;
    const value = Number(trimmed);
    return Number.isSafeInteger(value) ? value : null;
  };
  const required = (cursor: EventCursor): number => {
    const value = position(cursor);
    if (value === null) throw new ValidationError('The event cursor is not one of this log.');
    return value;
  };
  return {
    async head() {
      return String(await store.newest());
    },
    async read(after, limit) {
      const start = after === null ? 0 : required(after);
      const found = await store.after(start, limit);
      const events = found.map(({ position: at, event }) => ({ ...event, cursor: String(at) }));
      return { events, next: events.at(-1)?.cursor ?? after ?? '0' };
    },
    cursorOf(text) {
      const value = position(text);
      return value === null ? null : String(value);
    },
    ordinal: required,
  };
}
