/**
 * The one DML statement a batch is written with: a MERGE of the batch's rows into the table by id.
 *
 * Why a MERGE: one statement is atomic in BigQuery, so the batch's deletes and replaced rows land
 * together or not at all, without a multi-statement transaction. Rows streamed with `insertAll`
 * could not be updated or deleted by a later flush while they sit in the streaming buffer, and a
 * load job cannot delete. The rows travel as one query parameter, `@rows`, an array of structs of
 * text (`id`, `deleted`, then `v0`, `v1`, ... in column order), so no value is ever spliced into
 * the SQL; each value is CAST to its column's type in the statement, and a value that does not cast
 * fails the statement, and with it the whole batch.
 */
import type { WarehouseBatch } from '@odp/core';

/** A column of the table, its type as the BigQuery API names it (`INTEGER`, `BOOLEAN`, `INT64`, ...). */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
}

/** The statement and its parameter, as `BigQuery.createQueryJob` takes them. */
export interface MergeQuery {
  readonly query: string;
  readonly params: { rows: Record<string, string | boolean | null>[] };
  readonly types: { rows: Record<string, string>[] };
}

/** The SQL type of an API field type, for a CAST (the API answers legacy names for some). */
const SQL_TYPES: Readonly<Record<string, string>> = {
  INTEGER: 'INT64',
  FLOAT: 'FLOAT64',
  BOOLEAN: 'BOOL',
  RECORD: 'STRUCT',
};

/** A column name in backticks (GoogleSQL quoted identifier). */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

/**
 * The MERGE of `batch` into `table` (a quoted `project.dataset.table` path), whose columns are
 * `columns` (without `id`). A matched id of a deleted object is deleted; a matched row is replaced
 * (table columns the batch does not carry become NULL, as for a row written anew); a new id is
 * inserted. Null when the batch has nothing to write.
 */
export function mergeQuery(
  table: string,
  columns: readonly TableColumn[],
  batch: WarehouseBatch,
): MergeQuery | null {
  if (batch.rows.length === 0 && batch.deletes.length === 0) return null;
  const carried = columns.filter((column) => column.name in batch.columns);
  const field = new Map(carried.map((column, index) => [column.name, `v${index}`]));
  const valueOf = (column: TableColumn): string => {
    const name = field.get(column.name);
    if (name === undefined) return 'NULL';
    return `CAST(source.${name} AS ${SQL_TYPES[column.type] ?? column.type})`;
  };
  const rowType: Record<string, string> = { id: 'STRING', deleted: 'BOOL' };
  for (const name of field.values()) rowType[name] = 'STRING';
  const rows: Record<string, string | boolean | null>[] = batch.deletes.map((id) => ({
    id,
    deleted: true,
    ...Object.fromEntries([...field.values()].map((name) => [name, null])),
  }));
  for (const row of batch.rows) {
    const struct: Record<string, string | boolean | null> = { id: row.id, deleted: false };
    for (const [column, name] of field) struct[name] = row.values[column] ?? null;
    rows.push(struct);
  }
  const names = columns.map((column) => quoteIdentifier(column.name));
  const values = columns.map(valueOf);
  const update = columns.map((column, index) => `${names[index]} = ${values[index]}`);
  const query = [
    `MERGE ${table} AS target`,
    'USING (SELECT * FROM UNNEST(@rows)) AS source',
    'ON target.`id` = source.id',
    'WHEN MATCHED AND source.deleted THEN DELETE',
    ...(update.length === 0 ? [] : [`WHEN MATCHED THEN UPDATE SET ${update.join(', ')}`]),
    `WHEN NOT MATCHED AND NOT source.deleted THEN INSERT (${['`id`', ...names].join(', ')})`,
    `  VALUES (${['source.id', ...values].join(', ')})`,
  ].join('\n');
  return { query, params: { rows }, types: { rows: [rowType] } };
}
