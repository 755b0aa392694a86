/**
 * Spreadsheet imports (`POST /data/{tenant}/import`, docs/excel.md): checked when requested, then
 * run in the background of the api process, row by row through the tenant's DataService (each row
 * its own create or patch: validation, access control, events and jobs exactly as a normal write;
 * a failing row is recorded and the next one goes on). Progress is a JSON record in the blob store
 * (`imports/<tenant>/<id>`), saved at least every second, so every api instance can answer
 * `GET /data/{tenant}/import/{id}`. An import whose process stopped is shown `interrupted`: on
 * shutdown at once, after a crash once its record went stale.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, NotFoundError, ValidationError } from '@odp/core';
import type { Account, BlobStore, FieldDef, IndexKey } from '@odp/core';
import { matchKey } from '@odp/data';
import type { DataService, ImportTarget } from '@odp/data';
import type { FileService } from '@odp/files';
import { isBlank, readCell, splitLines } from './cells.js';
import type { CellValue } from './cells.js';
import { checkTask, parseTask, resolveColumns } from './import-task.js';
import type { ColumnTarget, ImportTask, ResolvedColumns } from './import-task.js';
import { UnreadableFileError, formatOf, plausibleStart, readRows } from './rows.js';
import type { SheetFormat } from './rows.js';

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
interface ImportRecord extends Omit<ImportStatus, '_links'> {
  readonly owner: string;
}

/** Row errors kept in a record; further failures are only counted. */
export const MAX_ROW_ERRORS = 1000;
/**
 * Rows written concurrently by one import: each is still its own unit of work, but their reads,
 * formulas and rendering overlap another row's commit. Rows matching the same object in an update
 * are retried like concurrent requests (write conflicts).
 */
const ROWS_IN_FLIGHT = 8;
/** How often a running import saves its progress (also its heartbeat). */
const SAVE_INTERVAL_MS = 1000;
/** A running import whose record was not saved for this long belongs to a process that stopped. */
const STALE_AFTER_MS = 30_000;

export interface ImportServiceOptions {
  readonly blobs: BlobStore;
  readonly files: Pick<FileService, 'readUpload'>;
  /** Failures the client cannot act on (a record that could not be saved); never shown to clients. */
  readonly onError?: (message: string, error: unknown) => void;
  readonly now?: () => Date;
}

const recordKey = (tenantId: string, id: string) => `imports/${tenantId}/${id}`;
const ownerOf = (account: Account) => (account.kind === 'system' ? 'system' : `profile:${account.profileId}`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

function problemOf(error: unknown): { message: string; errors?: { field: string; message: string }[] } {
  if (error instanceof AppError) {
    return error.fieldErrors.length > 0
      ? { message: error.message, errors: [...error.fieldErrors] }
      : { message: error.message };
  }
  if (error instanceof UnreadableFileError) return { message: error.message };
  return { message: 'The row could not be written (internal error).' };
}

export class SpreadsheetImports {
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
   * for a bad body, mapping, upload descriptor, or a file that is no .xlsx or .csv. `data` opens
   * the tenant's data service (again for every batch of rows, so a model reload mid-import is followed).
   * Resolves the new import's status (state `running`).
   */
  async start(
    tenantId: string,
    account: Account,
    data: () => Promise<DataService>,
    body: unknown,
  ): Promise<ImportStatus> {
    const task = parseTask(body);
    const service = await data();
    const target = service.importTarget(account, task.typeName);
    checkTask(task, target);
    if (task.mode !== 'create' && task.matchBy !== 'id') service.matchField(target, task.matchBy);
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
      .finally(() => this.running.delete(key));
    this.running.set(key, control);
    return this.statusOf(tenantId, record);
  }

  /** The status of import `id` when `account` started it; NotFoundError otherwise. */
  async status(tenantId: string, account: Account, id: string): Promise<ImportStatus> {
    const record = UUID.test(id) ? await this.load(tenantId, id.toLowerCase()) : null;
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

  /** @internal The current time (ImportRun). */
  clock(): Date {
    return this.now();
  }

  /** @internal The upload's bytes again (ImportRun). */
  readUpload(tenantId: string, descriptor: unknown) {
    return this.options.files.readUpload(tenantId, descriptor, 'file');
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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One import running: reads the rows, writes each, saves progress. */
class ImportRun {
  private readonly record: Mutable<ImportRecord>;
  private readonly errors: RowError[] = [];
  private lastSave = 0;
  /** Objects of the target by match key (update and upsert on a field), read once per import. */
  private matches: Promise<Map<IndexKey, string[]>> | undefined;
  /** Relation target class -> lower-cased name -> ids, read once per import. */
  private readonly names = new Map<string, Promise<Map<string, string[]>>>();

  constructor(
    private readonly imports: SpreadsheetImports,
    private readonly tenantId: string,
    private readonly account: Account,
    private readonly data: () => Promise<DataService>,
    private readonly task: ImportTask,
    private readonly format: SheetFormat,
    record: ImportRecord,
    private readonly control: { stop: boolean },
  ) {
    this.record = { ...record };
  }

  async run(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let started = 0;
    let service: DataService | null = null;
    try {
      const { body } = await this.imports.readUpload(this.tenantId, this.task.file);
      let columns: ResolvedColumns | null = null;
      let target: ImportTarget | null = null;
      for await (const row of readRows(body, this.format, this.task.sheet)) {
        if (columns === null || target === null) {
          service = await this.data();
          target = service.importTarget(this.account, this.task.typeName);
          columns = resolveColumns(row.cells, this.task, target);
          this.record.ignoredColumns = columns.ignored;
          continue;
        }
        if (this.control.stop) {
          body.destroy();
          await Promise.all(inFlight);
          return await this.finish('interrupted', {
            message: 'The api process running the import was stopped.',
          });
        }
        // The tenant's data service once per ROWS_IN_FLIGHT rows, not per row: opening it checks
        // the tenant's pending reload, rebuild and default-data requests in the registry (a round
        // trip each on a document server), and a model reload is still followed within a batch.
        if (service === null || started % ROWS_IN_FLIGHT === 0) service = await this.data();
        const write = this.writeRow(service, row.number, row.cells, columns, target).then(() =>
          this.progress(),
        );
        inFlight.add(write);
        void write.finally(() => inFlight.delete(write));
        started += 1;
        // The rows' store calls may resolve without I/O: a turn of the event loop after each batch
        // keeps the process answering requests (and signals) while an import runs.
        if (started % ROWS_IN_FLIGHT === 0) await nextTurn();
        if (inFlight.size >= ROWS_IN_FLIGHT) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      if (columns === null) throw new UnreadableFileError('The file has no header row.');
      await this.finish('completed');
    } catch (error) {
      await Promise.allSettled(inFlight);
      await this.finish('failed', problemOf(error));
    }
  }

  private async progress(force = false): Promise<void> {
    const now = this.imports.clock().getTime();
    if (!force && now - this.lastSave < SAVE_INTERVAL_MS) return;
    this.lastSave = now;
    this.record.errors = [...this.errors].sort((a, b) => a.row - b.row);
    this.record.updatedAt = new Date(now).toISOString();
    try {
      await this.imports.save(this.tenantId, this.record);
    } catch (error) {
      this.imports.reportError('saving import progress failed', error);
    }
  }

  private async finish(state: ImportState, error?: ImportStatus['error']): Promise<void> {
    this.record.state = state;
    if (error) this.record.error = error;
    this.record.finishedAt = this.imports.clock().toISOString();
    await this.progress(true);
  }

  private fail(row: number, failure: Omit<RowError, 'row'>): void {
    this.record.failed += 1;
    if (this.errors.length < MAX_ROW_ERRORS) this.errors.push({ row, ...failure });
  }

  /** One row: its body, then a create or a patch; any failure is the row's error, never the import's. */
  private async writeRow(
    service: DataService,
    number: number,
    cells: readonly CellValue[],
    columns: ResolvedColumns,
    target: ImportTarget,
  ): Promise<void> {
    this.record.processed += 1;
    try {
      const built = await this.bodyOf(cells, columns, target);
      if ('errors' in built) {
        this.fail(number, {
          message: 'The row has values that do not fit their columns.',
          errors: built.errors,
        });
        return;
      }
      const { typeName, mode } = this.task;
      const existing =
        mode === 'create' ? { id: null, key: null } : await this.findExisting(service, target, built.match);
      if (existing.id === null) {
        if (mode === 'update') {
          this.fail(number, {
            message: `No ${typeName} object has ${this.task.matchBy} ${built.match ?? ''}.`,
          });
          return;
        }
        const href = await service.create(this.account, typeName, built.body);
        this.record.created += 1;
        if (existing.key !== null && this.matches) {
          const id = href.slice(href.lastIndexOf('/') + 1);
          const matches = await this.matches;
          matches.set(existing.key, [...(matches.get(existing.key) ?? []), id]);
        }
      } else {
        await service.patch(this.account, typeName, existing.id, built.body);
        this.record.updated += 1;
      }
    } catch (error) {
      if (!(error instanceof AppError)) this.imports.reportError('import row failed', error);
      this.fail(number, problemOf(error));
    }
  }

  /**
   * The id of the object a row updates (null when none) and the key it was looked up by (to record
   * an object the row creates); AppError when several match.
   */
  private async findExisting(
    service: DataService,
    target: ImportTarget,
    match: string | null,
  ): Promise<{ id: string | null; key: IndexKey | null }> {
    if (match === null) return { id: null, key: null };
    if (this.task.matchBy === 'id') return { id: UUID.test(match) ? match.toLowerCase() : null, key: null };
    const field = service.matchField(target, this.task.matchBy);
    const key = matchKey(field, match);
    const ids = key === null ? [] : ((await this.matchesOf(service, target, field)).get(key) ?? []);
    if (ids.length > 1)
      throw new ValidationError(`Several ${target.cls.plural} have ${field.name} ${match}.`);
    return { id: ids[0] ?? null, key };
  }

  /**
   * The readable objects of the target by match key, read once per import; the objects the import
   * creates are added as they are written, so a later row with the same value patches them.
   */
  private matchesOf(
    service: DataService,
    target: ImportTarget,
    field: FieldDef,
  ): Promise<Map<IndexKey, string[]>> {
    this.matches ??= service.idsByValue(this.account, target, field);
    return this.matches;
  }

  /**
   * The create or patch body of a row, and the value it is matched on. On create a blank cell is
   * left out (defaults apply); on update it clears the field or relation.
   */
  private async bodyOf(
    cells: readonly CellValue[],
    columns: ResolvedColumns,
    target: ImportTarget,
  ): Promise<
    { body: Record<string, unknown>; match: string | null } | { errors: { field: string; message: string }[] }
  > {
    const body: Record<string, unknown> = {};
    const errors: { field: string; message: string }[] = [];
    let match: string | null = null;
    const creating = this.task.mode === 'create';
    for (const [index, column] of columns.targets.entries()) {
      if (column === null) continue;
      const cell = cells[index] ?? null;
      const matchedHere = this.isMatchColumn(column);
      if (matchedHere && !isBlank(cell))
        match = String(cell instanceof Date ? cell.toISOString() : cell).trim();
      if (column.kind === 'id') continue;
      if (isBlank(cell) && creating) continue;
      if (column.kind === 'field') {
        const read = readCell(column.field, cell, target.listOf(column.field));
        if (read.ok) body[column.field.name] = read.value;
        else errors.push({ field: column.field.name, message: read.message });
        continue;
      }
      const resolved = await this.relationValue(column, cell);
      if ('message' in resolved) errors.push({ field: column.end.name, message: resolved.message });
      else body[column.end.name] = resolved.value;
    }
    return errors.length > 0 ? { errors } : { body, match };
  }

  private isMatchColumn(column: ColumnTarget): boolean {
    if (this.task.mode === 'create') return false;
    return this.task.matchBy === 'id'
      ? column.kind === 'id'
      : column.kind === 'field' && column.field.name === this.task.matchBy;
  }

  /** A relation cell as the ids it links to (one per line), matched by name or taken as ids. */
  private async relationValue(
    column: Extract<ColumnTarget, { kind: 'relation' }>,
    cell: CellValue,
  ): Promise<{ value: unknown } | { message: string }> {
    const { end, match } = column;
    const lines = splitLines(cell);
    if (!end.multiple && lines.length > 1) return { message: 'links one object; the cell names several' };
    const ids: string[] = [];
    for (const line of lines) {
      if (match === 'id') {
        ids.push(line);
        continue;
      }
      const found = (await this.namesOf(end.otherClass)).get(line.toLowerCase()) ?? [];
      if (found.length !== 1) {
        return {
          message:
            found.length === 0
              ? `no object named ${JSON.stringify(line)}`
              : `${found.length} objects are named ${JSON.stringify(line)}`,
        };
      }
      ids.push(found[0] as string);
    }
    return { value: end.multiple ? ids : (ids[0] ?? null) };
  }

  private namesOf(className: string): Promise<Map<string, string[]>> {
    let names = this.names.get(className);
    if (names === undefined) {
      names = this.data().then((service) => service.idsByName(this.account, className));
      this.names.set(className, names);
    }
    return names;
  }
}
