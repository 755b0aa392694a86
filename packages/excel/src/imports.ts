/**
 * Spreadsheet imports (`POST /data/{tenant}/import`, docs/excel.md): checked when requested, then
 * run in the background of the api process, row by row through the tenant's object service (each row
 * its own create or patch: validation, access control, events and jobs exactly as a normal write;
 * a failing row is recorded and the next one goes on). Progress is a JSON record in the blob store
 * (`imports/<tenant>/<id>`), saved at least every second, so every api instance can answer
 * `GET /data/{tenant}/import/{id}`. An import whose process stopped is shown `interrupted`: on
 * shutdown at once, after a crash once its record went stale.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { NotFoundError, ValidationError } from '@odp/core';
import type { Account, BlobStore, ImportLimits } from '@odp/core';
import type { DataResources } from '@odp/data';
import type { FileService } from '@odp/files';
import { ImportRun } from './import-run.js';
import type { ImportHost } from './import-run.js';
import type { ImportRecord, ImportStatus } from './import-status.js';
import { IMPORT_ID } from './import-status.js';
import { checkTask, parseTask } from './import-task.js';
import type { ImportTask } from './import-task.js';
import { formatOf, plausibleStart } from './rows.js';

/** A running import whose record was not saved for this long belongs to a process that stopped. */
const STALE_AFTER_MS = 30_000;

export interface ImportServiceOptions {
  readonly blobs: BlobStore;
  readonly files: Pick<FileService, 'readUpload'>;
  /** What a file may make its reader do (docs/excel.md, "Limits"). */
  readonly limits: ImportLimits;
  /** The tenants' import slots: an import holds one while it runs. */
  readonly slots: ImportSlots;
  /** Failures the client cannot act on (a record that could not be saved); never shown to clients. */
  readonly onError?: (message: string, error: unknown) => void;
  /**
   * Runs a batch of an import's row writes at the tenant's turn in the process's fair share,
   * charged to the tenant like a request (`FairShare.turn`); at once when absent.
   */
  readonly turn?: <T>(tenantId: string, work: () => Promise<T>) => Promise<T>;
  readonly now?: () => Date;
}

/**
 * The cap on the imports one tenant may have running (`ODP_TENANT_IMPORTS`; shared by the api
 * processes that share its leases).
 */
export interface ImportSlots {
  /** Resolves the release of one of the tenant's slots; TenantShareError (429) when it holds them all. */
  claim(tenantId: string): Promise<() => Promise<void>>;
}

const recordKey = (tenantId: string, id: string) => `imports/${tenantId}/${id}`;
const ownerOf = (account: Account) => (account.kind === 'system' ? 'system' : `profile:${account.profileId}`);
/** How long a client refused for the tenant's running imports is asked to wait. */
export const RETRY_IMPORT_AFTER_SECONDS = 5;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function firstBytes(stream: Readable, count: number): Promise<Buffer> {
  let head = Buffer.alloc(0);
  for await (const chunk of stream) {
    head = Buffer.concat([head, Buffer.from(chunk as Uint8Array)]);
    if (head.length >= count) break;
  }
  stream.destroy();
  return head.subarray(0, count);
}

export class SpreadsheetImports implements ImportHost {
  private readonly now: () => Date;
  /** Imports running in this process, by `<tenant>/<id>`; `stop` asks them to end after their row. */
  private readonly running = new Map<string, { stop: boolean; done: Promise<void> }>();
  /** Set by `close`: an import started while the process stops is recorded `interrupted` at once. */
  private closing = false;

  constructor(private readonly options: ImportServiceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Checks the ImportTask and starts the import in the background: 404 for an unknown class, 400
   * for a bad body, mapping, upload descriptor, or a file that is no .xlsx or .csv; 429
   * (TenantShareError) while the tenant holds all its import slots. `data` opens
   * the tenant's data service (again for every batch of rows, so a model reload mid-import is followed).
   * Resolves the new import's status (state `running`).
   */
  async start(
    tenantId: string,
    account: Account,
    data: () => Promise<DataResources>,
    body: unknown,
  ): Promise<ImportStatus> {
    const task = parseTask(body);
    const release = await this.options.slots.claim(tenantId);
    try {
      return await this.begin(tenantId, account, data, task, release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** `start` once the task is parsed and a slot claimed; the run frees the slot when it ends. */
  private async begin(
    tenantId: string,
    account: Account,
    data: () => Promise<DataResources>,
    task: ImportTask,
    release: () => Promise<void>,
  ): Promise<ImportStatus> {
    const service = await data();
    const target = service.importTarget(account, task.typeName);
    checkTask(task, target);
    if (task.mode !== 'create' && task.matchBy !== 'id')
      service.objects.tabular.assertMatchField(target.cls, task.matchBy);
    const { file, body: bytes } = await this.options.files.readUpload(tenantId, task.file, 'file');
    const format = formatOf(file);
    if (!plausibleStart(format, await firstBytes(bytes, 512))) {
      throw new ValidationError(
        `The file is not a readable ${format === 'csv' ? 'CSV file' : '.xlsx workbook'}.`,
        [{ field: 'file', message: `is not a readable ${format} file` }],
      );
    }
    const at = this.now().toISOString();
    const record: ImportRecord = {
      id: randomUUID(),
      owner: ownerOf(account),
      state: 'running',
      typeName: task.typeName,
      mode: task.mode,
      fileName: file.fileName,
      processed: 0,
      created: 0,
      updated: 0,
      failed: 0,
      errors: [],
      ignoredColumns: [],
      createdAt: at,
      updatedAt: at,
    };
    await this.save(tenantId, record);
    const key = `${tenantId}/${record.id}`;
    const control = { stop: this.closing, done: Promise.resolve() };
    control.done = new ImportRun(this, tenantId, account, data, task, format, record, control)
      .run()
      .catch((error: unknown) => this.options.onError?.('import failed', error))
      .finally(async () => {
        this.running.delete(key);
        await release();
      });
    this.running.set(key, control);
    return this.statusOf(tenantId, record);
  }

  /** The status of import `id` when `account` started it; NotFoundError otherwise. */
  async status(tenantId: string, account: Account, id: string): Promise<ImportStatus> {
    const record = IMPORT_ID.test(id) ? await this.load(tenantId, id.toLowerCase()) : null;
    if (!record || record.owner !== ownerOf(account)) throw new NotFoundError('No such import.');
    const stale =
      record.state === 'running' &&
      !this.running.has(`${tenantId}/${record.id}`) &&
      this.now().getTime() - Date.parse(record.updatedAt) > STALE_AFTER_MS;
    return this.statusOf(
      tenantId,
      stale
        ? {
            ...record,
            state: 'interrupted',
            error: { message: 'The api process running the import stopped.' },
          }
        : record,
    );
  }

  /** Waits for the imports running in this process to finish. */
  async settled(): Promise<void> {
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  /**
   * The tenant's data is being deleted: its imports running in this process stop after their
   * current row, and once they have ended (their last record written) every import record of the
   * tenant is deleted. Resolves how many records were deleted.
   */
  async deleteTenant(tenantId: string): Promise<number> {
    const prefix = `${tenantId}/`;
    const ending = [...this.running].filter(([key]) => key.startsWith(prefix)).map(([, run]) => run);
    for (const run of ending) run.stop = true;
    await Promise.all(ending.map((run) => run.done));
    let deleted = 0;
    for await (const blob of this.options.blobs.list(recordKey(tenantId, ''))) {
      await this.options.blobs.delete(blob.key);
      deleted += 1;
    }
    return deleted;
  }

  /** Shutdown: every running import stops after its current row and is recorded `interrupted`. */
  async close(): Promise<void> {
    this.closing = true;
    for (const run of this.running.values()) run.stop = true;
    await this.settled();
  }

  private statusOf(tenantId: string, record: ImportRecord): ImportStatus {
    const { owner: _owner, ...status } = record;
    return { ...status, _links: { self: { href: `/data/${tenantId}/import/${record.id}` } } };
  }

  /** @internal Saves a record (ImportRun's progress). */
  async save(tenantId: string, record: ImportRecord): Promise<void> {
    await this.options.blobs.put(
      recordKey(tenantId, record.id),
      Readable.from([Buffer.from(JSON.stringify(record))]),
    );
  }

  /** @internal The import limits (ImportRun). */
  get limits(): ImportLimits {
    return this.options.limits;
  }

  /** @internal The current time (ImportRun). */
  clock(): Date {
    return this.now();
  }

  /** @internal The upload's bytes again (ImportRun). */
  readUpload(tenantId: string, descriptor: unknown) {
    return this.options.files.readUpload(tenantId, descriptor, 'file');
  }

  /** @internal A batch of row writes at the tenant's turn (ImportRun). */
  turn<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    return this.options.turn ? this.options.turn(tenantId, work) : work();
  }

  /** @internal */
  reportError(message: string, error: unknown): void {
    this.options.onError?.(message, error);
  }

  private async load(tenantId: string, id: string): Promise<ImportRecord | null> {
    const stream = await this.options.blobs.get(recordKey(tenantId, id));
    if (stream === null) return null;
    try {
      return JSON.parse((await readAll(stream)).toString('utf8')) as ImportRecord;
    } catch {
      return null;
    }
  }
}
