/**
 * Object rows remembered between list pages: the stored objects a page read (values parsed,
 * forward links read), by key, each with the sort keys its pages were ordered by. A page whose
 * objects are all remembered reads only its keys: not their rows, their links, nor their JSON
 * again, which together were about a fifth of a filtered page's CPU.
 *
 * They are held only while nothing can have changed them: forgotten after every write transaction
 * of this connection, and whenever another connection committed to the file (`PRAGMA
 * data_version`, read each time a page opens a read); neither read nor filled inside a write
 * transaction, whose rows may yet roll back. Rows read before a forget are not remembered after
 * it: a page yields to the event loop between its rows' read and their conversion, and a write
 * may commit meanwhile. The objects are shared by the pages that read them; a page's consumers
 * render them and never change them.
 */
import type { StoredObject } from '@odp/core';
import type { ConnectionChanges } from './database.js';
import type { Sql } from './query/sql.js';

/** A stored object as a page read it, with its value of the page's sort key. */
export interface PageRow {
  readonly n: number;
  readonly object: StoredObject;
  /** The value of the page's sort key for this object (undefined without a sort key). */
  readonly sortKey: unknown;
}

/** What a read of rows started with: rows it reads are remembered only if nothing was forgotten since. */
export interface RowsRead {
  readonly generation: number;
}

interface Remembered {
  readonly object: StoredObject;
  readonly chars: number;
  /** Sort key values by sort ({@link sortIdOf}). */
  readonly sortKeys: Map<string, unknown>;
}

/**
 * Characters of row text remembered at most per tenant store: about 4,000 invoices of the
 * benchmark, 2-3 MB once parsed. The oldest rows go first.
 */
const REMEMBERED_CHARS = 1_000_000;
/** A row with more text than this is not remembered: it would push out many small ones. */
const REMEMBERED_ROW_CHARS = 65_536;

export class RememberedRows {
  private readonly rows = new Map<number, Remembered>();
  private chars = 0;
  /** The `data_version` the remembered rows were read under. */
  private version: number | null = null;
  /** Counts the forgets: a read that started in an earlier generation remembers nothing. */
  private generation = 0;

  constructor(private readonly context: ConnectionChanges) {
    context.onWrite(() => this.forget());
  }

  /**
   * Starts a read of rows: null inside a write transaction (nothing remembered is used or kept),
   * else the read, after forgetting everything when another connection committed since the rows
   * were read.
   */
  open(): RowsRead | null {
    if (this.context.inTransaction()) return null;
    const version = this.context.dataVersion();
    if (version !== this.version) {
      this.forget();
      this.version = version;
    }
    return { generation: this.generation };
  }

  /** The remembered object `n` with its value of the sort `sortId`, if both are remembered. */
  find(n: number, sortId: string): PageRow | undefined {
    const remembered = this.rows.get(n);
    if (remembered === undefined || !remembered.sortKeys.has(sortId)) return undefined;
    return { n, object: remembered.object, sortKey: remembered.sortKeys.get(sortId) };
  }

  /**
   * Remembers `row` (of `chars` characters of row text) as read by `read` under the sort
   * `sortId`, unless something was forgotten since the read started.
   */
  remember(read: RowsRead, row: PageRow, chars: number, sortId: string): void {
    if (read.generation !== this.generation || chars > REMEMBERED_ROW_CHARS) return;
    const known = this.rows.get(row.n);
    const sortKeys = known?.sortKeys ?? new Map<string, unknown>();
    sortKeys.set(sortId, row.sortKey);
    if (known !== undefined) {
      this.rows.delete(row.n);
      this.chars -= known.chars;
    }
    this.rows.set(row.n, { object: row.object, chars, sortKeys });
    this.chars += chars;
    for (const [n, oldest] of this.rows) {
      if (this.chars <= REMEMBERED_CHARS) break;
      this.rows.delete(n);
      this.chars -= oldest.chars;
    }
  }

  private forget(): void {
    this.rows.clear();
    this.chars = 0;
    this.generation += 1;
  }
}

/** The identity of a sort key expression (its SQL text and parameters); '' for none. */
export function sortIdOf(sortKey: Sql | undefined): string {
  return sortKey === undefined ? '' : `${sortKey.text}\u0000${JSON.stringify(sortKey.params)}`;
}
