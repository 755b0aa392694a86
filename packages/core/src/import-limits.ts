/**
 * The limits of one spreadsheet or CSV import (docs/excel.md, "Limits"; docs/configuration.md): what
 * the file may make its reader inflate, hold and produce, and the heap and time of the worker thread
 * that reads it. A file over a limit ends its import `failed`, naming the limit; it never reaches
 * the memory or the event loop of the api process that serves every other tenant.
 */
export interface ImportLimits {
  /** Inflated bytes of one part (member) of a workbook's zip archive. */
  readonly maxPartBytes: number;
  /** Inflated bytes of all the parts of a workbook that the reader reads. */
  readonly maxInflatedBytes: number;
  /** Entries of a workbook's shared-string table (the reader keeps them all while it reads). */
  readonly maxSharedStrings: number;
  /** UTF-8 bytes of the text of a workbook's shared strings, all together. */
  readonly maxSharedStringBytes: number;
  /** UTF-8 bytes of one cell's value. */
  readonly maxCellBytes: number;
  /** UTF-8 bytes of one row: a CSV line or record, or the cells of one row of a sheet. */
  readonly maxRowBytes: number;
  /** Data rows of a file (the header excluded). */
  readonly maxRows: number;
  /** The JavaScript heap of the worker thread that reads the file, in MiB. */
  readonly memoryMb: number;
  /** How long the reader may take to produce one batch of rows, in seconds. */
  readonly timeoutSeconds: number;
}

/** Defaults: far above a sheet a person edits, far below what would trouble the process. */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxPartBytes: 512 * 1024 * 1024,
  maxInflatedBytes: 1024 * 1024 * 1024,
  maxSharedStrings: 1_000_000,
  maxSharedStringBytes: 64 * 1024 * 1024,
  maxCellBytes: 1024 * 1024,
  maxRowBytes: 4 * 1024 * 1024,
  maxRows: 1_000_000,
  memoryMb: 256,
  timeoutSeconds: 60,
};

/** The configuration variable of each limit (read by `@odp/config`, named in a failed import's reason). */
export const IMPORT_LIMIT_VARIABLES = {
  maxPartBytes: 'ODP_IMPORT_MAX_PART_BYTES',
  maxInflatedBytes: 'ODP_IMPORT_MAX_INFLATED_BYTES',
  maxSharedStrings: 'ODP_IMPORT_MAX_SHARED_STRINGS',
  maxSharedStringBytes: 'ODP_IMPORT_MAX_SHARED_STRING_BYTES',
  maxCellBytes: 'ODP_IMPORT_MAX_CELL_BYTES',
  maxRowBytes: 'ODP_IMPORT_MAX_ROW_BYTES',
  maxRows: 'ODP_IMPORT_MAX_ROWS',
  memoryMb: 'ODP_IMPORT_MEMORY_MB',
  timeoutSeconds: 'ODP_IMPORT_TIMEOUT_SECONDS',
} as const satisfies Record<keyof ImportLimits, string>;

/** Imports one tenant may have running in one api process by default (`ODP_TENANT_IMPORTS`). */
export const DEFAULT_TENANT_IMPORTS = 2;
