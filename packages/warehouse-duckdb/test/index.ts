/**
 * Reads a table of the embedded warehouse back, for tests: the column types and the rows (values
 * as JSON: numbers of DECIMAL and BIGINT columns as text, dates and times as ISO text).
 */
import { existsSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { projectFile } from '../src/duckdb-warehouse.js';

export interface WarehouseTable {
  /** Column name to DuckDB type, in table order; empty when the table does not exist. */
  readonly columns: Record<string, string>;
  /** Rows ordered by id. */
  readonly rows: Record<string, unknown>[];
}

export async function readWarehouseTable(
  dir: string,
  target: { tenantId: string; projectId: string; dataset: string; table: string },
): Promise<WarehouseTable> {
  const file = projectFile(dir, target.tenantId, target.projectId);
  if (!existsSync(file)) return { columns: {}, rows: [] };
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const described = await connection.runAndReadAll(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
      [target.dataset, target.table],
    );
    const columns: Record<string, string> = {};
    for (const row of described.getRowObjectsJson())
      columns[String(row['column_name'])] = String(row['data_type']);
    if (Object.keys(columns).length === 0) return { columns, rows: [] };
    const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
    const rows = await connection.runAndReadAll(
      `SELECT * FROM ${quote(target.dataset)}.${quote(target.table)} ORDER BY "id"`,
    );
    return { columns, rows: rows.getRowObjectsJson() as Record<string, unknown>[] };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
