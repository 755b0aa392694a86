/**
 * One import running (see `imports.ts`): reads the rows of the upload (parsed in a process of its own
 * within the import limits, `isolated-rows.ts`), writes each through the tenant's object service
 * (class names and ids; the plural of the request is resolved once, to the import target) as
 * the importing account, and saves its progress.
 */
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, ValidationError } from '@odp/core';
import type { Account, FieldDef, ImportLimits, IndexKey } from '@odp/core';
import { matchKey } from '@odp/data';
import type { DataResources, ImportTarget, ObjectService } from '@odp/data';
import { isBlank, readCell, splitLines } from './cells.js';
import type { CellValue } from './cells.js';
import { IMPORT_ID } from './import-status.js';
import type { ImportRecord, ImportState, ImportStatus, RowError } from './import-status.js';
import { resolveColumns } from './import-task.js';
import type { ColumnTarget, ImportTask, ResolvedColumns } from './import-task.js';
import { isolatedRows } from './isolated-rows.js';
import { UnreadableFileError } from './rows.js';
import type { SheetFormat } from './rows.js';

/** Row errors kept in a record; further failures are only counted. */
export const MAX_ROW_ERRORS = 1000;
/**
 * Rows written concurrently by one import, as one batch: each is still its own unit of work, but
 * their reads, formulas and rendering overlap another row's commit. Rows matching the same object
 * in an update are retried like concurrent requests (write conflicts). A batch is written at the
 * tenant's turn in the fair share, like one request of the tenant: another tenant's requests go
 * first, and the import's batches are charged to its tenant.
 */
const ROWS_IN_FLIGHT = 8;
/** How often a running import saves its progress (also its heartbeat). */
const SAVE_INTERVAL_MS = 1000;

/** What a run needs of the import service. */
export interface ImportHost {
  readonly limits: ImportLimits;
  save(tenantId: string, record: ImportRecord): Promise<void>;
  clock(): Date;
  readUpload(tenantId: string, descriptor: unknown): Promise<{ readonly body: Readable }>;
  reportError(message: string, error: unknown): void;
  /** Runs `work` (a batch of row writes) at the tenant's turn in the process's fair share. */
  turn<T>(tenantId: string, work: () => Promise<T>): Promise<T>;
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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One import running: reads the rows, writes each, saves progress. */
export class ImportRun {
  private readonly record: Mutable<ImportRecord>;
  private readonly errors: RowError[] = [];
  private lastSave = 0;
  /** Objects of the target by match key (update and upsert on a field), read once per import. */
  private matches: Promise<Map<IndexKey, string[]>> | undefined;
  /** Relation target class -> lower-cased name -> ids, read once per import. */
  private readonly names = new Map<string, Promise<Map<string, string[]>>>();

  constructor(
    private readonly imports: ImportHost,
    private readonly tenantId: string,
    private readonly account: Account,
    private readonly data: () => Promise<DataResources>,
    private readonly task: ImportTask,
    private readonly format: SheetFormat,
    record: ImportRecord,
    private readonly control: { stop: boolean },
  ) {
    this.record = { ...record };
  }

  async run(): Promise<void> {
    let batch: (() => Promise<void>)[] = [];
    let service: ObjectService | null = null;
    /** Writes the batch's rows concurrently at the tenant's turn, then yields a turn of the loop. */
    const flush = async (): Promise<void> => {
      const rows = batch;
      batch = [];
      if (rows.length === 0) return;
      await this.imports.turn(this.tenantId, () => Promise.all(rows.map((write) => write())));
      // The rows' store calls may resolve without I/O: a turn of the event loop after each batch
      // keeps the process answering requests (and signals) while an import runs.
      await nextTurn();
    };
    try {
      const { body } = await this.imports.readUpload(this.tenantId, this.task.file);
      let columns: ResolvedColumns | null = null;
      let target: ImportTarget | null = null;
      for await (const row of isolatedRows(body, this.format, this.imports.limits, this.task.sheet)) {
        if (columns === null || target === null) {
          const resources = await this.data();
          service = resources.objects;
          target = resources.importTarget(this.account, this.task.typeName);
          columns = resolveColumns(row.cells, this.task, target);
          this.record.ignoredColumns = columns.ignored;
          continue;
        }
        if (this.control.stop) {
          body.destroy();
          return await this.finish('interrupted', {
            message: 'The api process running the import was stopped.',
          });
        }
        // The tenant's data service once per batch, not per row: opening it checks the tenant's
        // pending reload, rebuild and default-data requests in the registry (a round trip each on
        // a document server), and a model reload is still followed within a batch.
        if (service === null || batch.length === 0) service = (await this.data()).objects;
        const [rowService, rowColumns, rowTarget] = [service, columns, target];
        batch.push(() =>
          this.writeRow(rowService, row.number, row.cells, rowColumns, rowTarget).then(() => this.progress()),
        );
        if (batch.length >= ROWS_IN_FLIGHT) await flush();
      }
      await flush();
      if (columns === null) throw new UnreadableFileError('The file has no header row.');
      await this.finish('completed');
    } catch (error) {
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
    service: ObjectService,
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
        const { id } = await service.writes.create(this.account, target.cls.name, built.body);
        this.record.created += 1;
        if (existing.key !== null && this.matches) {
          const matches = await this.matches;
          matches.set(existing.key, [...(matches.get(existing.key) ?? []), id]);
        }
      } else {
        await service.writes.patch(this.account, { id: existing.id, className: target.cls.name }, built.body);
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
    service: ObjectService,
    target: ImportTarget,
    match: string | null,
  ): Promise<{ id: string | null; key: IndexKey | null }> {
    if (match === null) return { id: null, key: null };
    if (this.task.matchBy === 'id')
      return { id: IMPORT_ID.test(match) ? match.toLowerCase() : null, key: null };
    const field = service.tabular.assertMatchField(target.cls, this.task.matchBy);
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
    service: ObjectService,
    target: ImportTarget,
    field: FieldDef,
  ): Promise<Map<IndexKey, string[]>> {
    this.matches ??= service.tabular.idsByValue(this.account, target.cls, field);
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
      names = this.data().then((resources) => resources.objects.tabular.idsByName(this.account, className));
      this.names.set(className, names);
    }
    return names;
  }
}
