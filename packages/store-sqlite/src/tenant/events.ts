/**
 * The tenant's change events: appended by a write batch in its transaction, read as an `EventLog`.
 * Positions are AUTOINCREMENT row ids: writes commit one at a time, so positions follow the commit
 * order and a reader never sees an event before the ones below it.
 */
import { integerEventLog } from '@odp/core';
import type { ChangeEvent, EventLog, NewChangeEvent } from '@odp/core';
import type { TenantDatabase } from './database.js';
import { limitClause } from './query/sql.js';

/** The event log of a tenant database. */
export function tenantEventLog(database: TenantDatabase): EventLog {
  return integerEventLog({
    newest: async () =>
      (database.statement('SELECT max(seq) FROM events').pluck().get() as number | null) ?? 0,
    after: async (position, limit) => {
      const rows = database
        .statement(
          `SELECT seq, type, object_id, classes, loser_id, at, changed FROM events WHERE seq > ? ORDER BY seq ${limitClause(limit)}`,
        )
        .all(position) as {
        seq: number;
        type: ChangeEvent['type'];
        object_id: string;
        classes: string;
        loser_id: string | null;
        at: string;
        changed: string | null;
      }[];
      return rows.map((row) => ({
        position: row.seq,
        event: {
          type: row.type,
          objectId: row.object_id,
          classes: JSON.parse(row.classes) as string[],
          ...(row.loser_id === null ? {} : { loserId: row.loser_id }),
          at: row.at,
          ...(row.changed === null ? {} : { changed: JSON.parse(row.changed) as string[] }),
        },
      }));
    },
  });
}

/** Appends a batch's events (inside its transaction). */
export function appendEvents(database: TenantDatabase, events: readonly NewChangeEvent[]): void {
  for (const event of events) {
    database
      .statement(
        'INSERT INTO events (type, object_id, classes, loser_id, at, changed) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        event.type,
        event.objectId,
        JSON.stringify(event.classes),
        event.loserId ?? null,
        event.at,
        event.changed === undefined ? null : JSON.stringify(event.changed),
      );
  }
}
