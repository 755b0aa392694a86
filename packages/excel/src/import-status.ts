/** The status of an import as clients read it, and the record it is stored as (docs/excel.md). */
import type { ImportTask } from './import-task.js';

/** What an import id looks like (a UUID); any other id names no import. */
export const IMPORT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ImportState = 'running' | 'completed' | 'failed' | 'interrupted';

/** A row that was not written, and why. `row` is the row number in the sheet (the header is 1). */
export interface RowError {
  readonly row: number;
  readonly message: string;
  readonly errors?: readonly { field: string; message: string }[];
}

/** The progress of one import as `GET /data/{tenant}/import/{id}` answers it. */
export interface ImportStatus {
  readonly id: string;
  readonly state: ImportState;
  readonly typeName: string;
  readonly mode: ImportTask['mode'];
  readonly fileName: string;
  /** Data rows read so far (the header excluded). */
  readonly processed: number;
  readonly created: number;
  readonly updated: number;
  readonly failed: number;
  /** The first {@link MAX_ROW_ERRORS} row errors, in row order. */
  readonly errors: readonly RowError[];
  /** Headers of the file that fed nothing. */
  readonly ignoredColumns: readonly string[];
  /** Why the import ended before its last row (state `failed` or `interrupted`). */
  readonly error?: {
    readonly message: string;
    readonly errors?: readonly { field: string; message: string }[];
  };
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly finishedAt?: string;
  readonly _links: { readonly self: { readonly href: string } };
}

/** The stored record: the status plus who may read it. */
export interface ImportRecord extends Omit<ImportStatus, '_links'> {
  readonly owner: string;
}
