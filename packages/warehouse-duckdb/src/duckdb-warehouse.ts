/**
 * The embedded Warehouse: one DuckDB database file per tenant and project,
 * `<dir>/<tenantId>/<projectId>.duckdb`, a schema per dataset and a table per table (docs/worker.md, "The DatastoreReplicator gateway").
 *
 * A write opens the file, applies the batch in one transaction and closes it again: flushes are
 * minutes apart, and a closed file can be read by other tools (DuckDB lets one process write a
 * file at a time; a flush that finds it locked fails and is tried again on the next cycle).
 * Credentials are not used: the file system is the access control of an embedded warehouse.
 * DuckDB's native library is loaded on the first write, not when the platform starts (an api
 * process never flushes).
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Warehouse, WarehouseBatch, WarehouseColumnType, WarehouseTarget } from '@odp/core';

/** DuckDB's type for each warehouse column type (NUMERIC: 38 digits, 9 after the point, as BigQuery). */
export const DUCKDB_TYPES: Readonly<Record<WarehouseColumnType, string>> = {
  INT64: 'BIGINT',
  NUMERIC: 'DECIMAL(38,9)',
  BOOL: 'BOOLEAN',
  DATE: 'DATE',
  TIMESTAMP: 'TIMESTAMP',
  TIME: 'TIME',
  STRING: 'VARCHAR',
};

/** A project id names a file: letters, digits, `-` and `_`, starting with a letter or digit. */
const PROJECT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** Dataset and table names, as BigQuery allows them (letters, digits, underscores). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** A target the warehouse cannot have: retrying does not help. */
export class WarehouseTargetError extends Error {}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

type TargetNames = Pick<WarehouseTarget, 'tenantId' | 'projectId' | 'dataset' | 'table'>;

/** Checks the names of a target; throws WarehouseTargetError naming the bad one. */
export function checkTarget(target: TargetNames): void {
  // Tenant ids are the registry's UUIDs: the check keeps a directory name from being a path.
  if (!PROJECT.test(target.tenantId))
    throw new WarehouseTargetError(`the tenant id '${target.tenantId}' is not a directory name`);
  if (!PROJECT.test(target.projectId))
    throw new WarehouseTargetError(
      `_projectId '${target.projectId}' is not a project name (letters, digits, '-', '_')`,
    );
  if (!NAME.test(target.dataset))
    throw new WarehouseTargetError(
      `_dataset '${target.dataset}' is not a dataset name (letters, digits, '_')`,
    );
  if (!NAME.test(target.table))
    throw new WarehouseTargetError(`_table '${target.table}' is not a table name (letters, digits, '_')`);
}

/** The database file of a tenant's project in `dir`. */
export function projectFile(dir: string, tenantId: string, projectId: string): string {
  return path.join(dir, tenantId, `${projectId}.duckdb`);
}

export class DuckDbWarehouse implements Warehouse {
  constructor(private readonly dir: string) {}

  async write(target: WarehouseTarget, batch: WarehouseBatch): Promise<void> {
    checkTarget(target);
    await mkdir(path.join(this.dir, target.tenantId), { recursive: true });
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(projectFile(this.dir, target.tenantId, target.projectId));
    try {
      const connection = await instance.connect();
      try {
        await connection.run('BEGIN TRANSACTION');
        try {
          await applyBatch(connection, target, batch);
          await connection.run('COMMIT');
        } catch (error) {
          await connection.run('ROLLBACK');
          throw error;
        }
      } finally {
        connection.closeSync();
      }
    } finally {
      instance.closeSync();
    }
  }

  targetProblem(target: TargetNames): string | null {
    try {
      checkTarget(target);
      return null;
    } catch (error) {
      if (error instanceof WarehouseTargetError) return error.message;
      throw error;
    }
  }

  /** Deletes the tenant's directory with every project file in it. */
  async deleteTenant(tenantId: string): Promise<void> {
    if (!PROJECT.test(tenantId))
      throw new WarehouseTargetError(`the tenant id '${tenantId}' is not a directory name`);
    await rm(path.join(this.dir, tenantId), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    // Nothing stays open between writes.
  }
}

async function applyBatch(
  connection: DuckDBConnection,
  target: WarehouseTarget,
  batch: WarehouseBatch,
): Promise<void> {
  const table = `${quote(target.dataset)}.${quote(target.table)}`;
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quote(target.dataset)}`);
  const existing = await connection.runAndReadAll(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2`,
    [target.dataset, target.table],
  );
  const columns = new Map<string, string>(
    existing.getRowObjectsJson().map((row) => [String(row['column_name']), String(row['data_type'])]),
  );
  const wanted = Object.entries(batch.columns).filter(([name]) => name !== 'id');
  if (columns.size === 0) {
    const definitions = wanted.map(([name, type]) => `${quote(name)} ${DUCKDB_TYPES[type]}`);
    await connection.run(`CREATE TABLE ${table} (${['"id" VARCHAR NOT NULL', ...definitions].join(', ')})`);
    columns.set('id', 'VARCHAR');
    for (const [name, type] of wanted) columns.set(name, DUCKDB_TYPES[type]);
  } else {
    for (const [name, type] of wanted) {
      if (columns.has(name)) continue;
      await connection.run(`ALTER TABLE ${table} ADD COLUMN ${quote(name)} ${DUCKDB_TYPES[type]}`);
      columns.set(name, DUCKDB_TYPES[type]);
    }
  }
  const removed = [...batch.deletes, ...batch.rows.map((row) => row.id)];
  if (removed.length > 0) {
    const { listValue } = await import('@duckdb/node-api');
    await connection.run(`DELETE FROM ${table} WHERE "id" IN (SELECT unnest($1::VARCHAR[]))`, [
      listValue(removed),
    ]);
  }
  if (batch.rows.length === 0) return;
  const names = wanted.map(([name]) => name);
  const insert = await connection.prepare(
    `INSERT INTO ${table} (${['id', ...names].map(quote).join(', ')}) VALUES ($1${names
      .map((name, index) => `, CAST($${index + 2} AS ${columns.get(name)})`)
      .join('')})`,
  );
  for (const row of batch.rows) {
    insert.clearBindings();
    insert.bindVarchar(1, row.id);
    names.forEach((name, index) => {
      const value = row.values[name] ?? null;
      if (value === null) insert.bindNull(index + 2);
      else insert.bindVarchar(index + 2, value);
    });
    await insert.run();
  }
}
