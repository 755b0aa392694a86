/**
 * The Warehouse on Google BigQuery: `_projectId` is the tenant's Google Cloud project, `_dataset`
 * a dataset in it (it must exist: its location and access are the project owner's choice) and
 * `_table` a table the adapter creates on first use, authenticated as the service account of
 * `_credentials` (docs/worker.md, "The DatastoreReplicator gateway").
 *
 * A write reads the table's schema (tables.get), creates the table (tables.insert) or adds the
 * batch's missing columns (tables.patch), then writes the batch with one MERGE query job
 * (merge-statement.ts), which BigQuery applies atomically. Table creation and added columns are
 * not undone when the MERGE fails: both are idempotent, and a column is never dropped anyway.
 * Errors leave the adapter as WarehouseWriteError, whose message is BigQuery's with anything that
 * looks like a key or a token removed, and which keeps no request (headers hold the signed token).
 */
import type { BigQuery, TableField, TableMetadata } from '@google-cloud/bigquery';
import type { Warehouse, WarehouseBatch, WarehouseColumnType, WarehouseTarget } from '@odp/core';
import { mergeQuery } from './merge-statement.js';
import type { TableColumn } from './merge-statement.js';
import { parseServiceAccountKey, serviceAccountClient } from './service-account.js';
import { bigQueryTargetProblem, tablePath } from './target-names.js';
import type { TargetNames } from './target-names.js';

/** The platform's settings of the adapter (`ODP_BIGQUERY_*`, docs/configuration.md). */
export interface BigQueryWarehouseOptions {
  /** The API's base URL; Google's (`https://bigquery.googleapis.com`) when null. */
  readonly apiEndpoint: string | null;
  /** How long BigQuery may run one MERGE job before it cancels it (the job's `jobTimeoutMs`). */
  readonly jobTimeoutSeconds: number;
}

/** A write BigQuery refused or could not be reached for; the message holds no secret. */
export class WarehouseWriteError extends Error {}

export class BigQueryWarehouse implements Warehouse {
  constructor(private readonly options: BigQueryWarehouseOptions) {}

  async write(target: WarehouseTarget, batch: WarehouseBatch): Promise<void> {
    const problem = bigQueryTargetProblem(target);
    if (problem !== null) throw new WarehouseWriteError(problem);
    const key = parseServiceAccountKey(target.credentials);
    // The client is loaded on the first write, not when the platform starts (an api never flushes).
    const { BigQuery } = await import('@google-cloud/bigquery');
    const client = new BigQuery({
      projectId: target.projectId,
      authClient: await serviceAccountClient(key),
      ...(this.options.apiEndpoint === null ? {} : { apiEndpoint: this.options.apiEndpoint }),
    });
    try {
      const columns = await this.tableColumns(client, target, batch);
      if (columns === null) return;
      const merge = mergeQuery(tablePath(target), columns, batch);
      if (merge === null) return;
      const [job] = await client.createQueryJob({
        query: merge.query,
        params: merge.params,
        types: merge.types,
        jobTimeoutMs: this.options.jobTimeoutSeconds * 1000,
      });
      await job.getQueryResults({ maxResults: 0 });
    } catch (error) {
      throw new WarehouseWriteError(`BigQuery: ${redact(messageOf(error), key.privateKey)}`);
    }
  }

  /**
   * The table's columns after making sure it has the batch's: created with them on first use, or
   * the missing ones added (NULLABLE, of the batch's type). Null when the table does not exist and
   * the batch only deletes (nothing to delete from).
   */
  private async tableColumns(
    client: BigQuery,
    target: WarehouseTarget,
    batch: WarehouseBatch,
  ): Promise<TableColumn[] | null> {
    const table = client.dataset(target.dataset).table(target.table);
    const wanted = Object.entries(batch.columns).filter(([name]) => name !== 'id');
    const existing = await readSchema(() => table.getMetadata());
    if (existing === null) {
      if (batch.rows.length === 0) return null;
      const fields = [
        { name: 'id', type: 'STRING', mode: 'REQUIRED' },
        ...wanted.map(([name, type]) => nullable(name, type)),
      ];
      try {
        await client.dataset(target.dataset).createTable(target.table, { schema: { fields } });
      } catch (error) {
        // Created meanwhile by another writer: read what it created.
        if (statusOf(error) !== 409) throw error;
        return this.tableColumns(client, target, batch);
      }
      return wanted.map(([name, type]) => ({ name, type }));
    }
    const missing = wanted.filter(([name]) => !existing.some((field) => field.name === name));
    if (missing.length > 0) {
      const fields = [...existing, ...missing.map(([name, type]) => nullable(name, type))];
      await table.setMetadata({ schema: { fields } });
    }
    return [...existing, ...missing.map(([name, type]) => ({ name, type }))]
      .filter((field) => field.name !== 'id')
      .map((field) => ({ name: String(field.name), type: String(field.type) }));
  }

  targetProblem(target: TargetNames): string | null {
    return bigQueryTargetProblem(target);
  }

  /** The tenant's projects belong to its own Google account: nothing of them is deleted here. */
  async deleteTenant(): Promise<void> {}

  async close(): Promise<void> {
    // A client lives for one write; nothing stays open.
  }
}

function nullable(name: string, type: WarehouseColumnType): TableField {
  return { name, type, mode: 'NULLABLE' };
}

/** The schema fields of a table, or null when it does not exist (404). */
async function readSchema(get: () => Promise<[TableMetadata, ...unknown[]]>): Promise<TableField[] | null> {
  try {
    const [metadata] = await get();
    return metadata.schema?.fields ?? [];
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** JWTs (the signed bearer tokens), PEM blocks and OAuth access tokens, wherever they appear. */
const TOKENS = [
  /eyJ[\w-]+\.[\w-]+\.[\w-]+/g,
  /-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g,
  /ya29\.[\w.-]+/g,
];

/** `message` without the private key or any token in it. */
function redact(message: string, privateKey: string): string {
  let text = message.split(privateKey).join('[redacted]');
  for (const token of TOKENS) text = text.replace(token, '[redacted]');
  return text;
}
