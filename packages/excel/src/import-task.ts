/**
 * The ImportTask body of `POST /data/{tenant}/import` and what it resolves to (docs/excel.md):
 *
 * ```
 * { file: <upload descriptor, unchanged>,   typeName: "<plural of the class written>",
 *   mode?: "create" | "update" | "upsert",  matchBy?: "id" | "<indexed field>",
 *   mapping?: { "<column header>": "<field or relation name>" | "id" | null },
 *   relations?: { "<relation name>": "name" | "id" },  sheet?: "<sheet name>" }
 * ```
 *
 * The body is checked when the import is requested (400 naming each bad member, 404 for an unknown
 * class); the columns are resolved against the file's header when the import runs.
 */
import { ValidationError } from '@odp/core';
import type { FieldDef, RelationEnd } from '@odp/core';
import type { ImportTarget } from '@odp/data';
import { ID_COLUMN } from './export.js';

export type ImportMode = 'create' | 'update' | 'upsert';
export type RelationMatch = 'name' | 'id';

export interface ImportTask {
  readonly file: unknown;
  readonly typeName: string;
  readonly mode: ImportMode;
  /** `id`, or the name of an indexed field of the class; what update and upsert find objects by. */
  readonly matchBy: string;
  /** Column header -> field or relation name, `id`, or null to skip the column. */
  readonly mapping: Readonly<Record<string, string | null>>;
  readonly relations: Readonly<Record<string, RelationMatch>>;
  readonly sheet?: string;
}

/** What a column of the file feeds. */
export type ColumnTarget =
  | { readonly kind: 'id' }
  | { readonly kind: 'field'; readonly field: FieldDef }
  | { readonly kind: 'relation'; readonly end: RelationEnd; readonly match: RelationMatch };

export interface ResolvedColumns {
  /** Per column of the file (by position): what it feeds, or null when it is skipped. */
  readonly targets: readonly (ColumnTarget | null)[];
  /** Headers that matched nothing and are skipped. */
  readonly ignored: readonly string[];
}

const MODES: readonly ImportMode[] = ['create', 'update', 'upsert'];
const KNOWN_KEYS = new Set(['file', 'typeName', 'mode', 'matchBy', 'mapping', 'relations', 'sheet']);

type Problem = { field: string; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shape of the body: ValidationError naming every bad member. Classes are checked by {@link checkTask}. */
export function parseTask(body: unknown): ImportTask {
  if (!isRecord(body)) throw new ValidationError('The body must be an ImportTask object.');
  const problems: Problem[] = [];
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key)) problems.push({ field: key, message: 'is not a member of an ImportTask' });
  }
  const { file, typeName, mode = 'create', matchBy = 'id', mapping = {}, relations = {}, sheet } = body;
  if (file === undefined) problems.push({ field: 'file', message: 'is required: the upload descriptor' });
  if (typeof typeName !== 'string' || typeName === '')
    problems.push({ field: 'typeName', message: 'is required: the plural name of the class' });
  if (!MODES.includes(mode as ImportMode))
    problems.push({ field: 'mode', message: 'must be create, update or upsert' });
  if (typeof matchBy !== 'string' || matchBy === '')
    problems.push({ field: 'matchBy', message: 'must be a field name or id' });
  if (sheet !== undefined && (typeof sheet !== 'string' || sheet === ''))
    problems.push({ field: 'sheet', message: 'must be a sheet name' });
  if (!isRecord(mapping)) problems.push({ field: 'mapping', message: 'must be an object of header -> name' });
  else {
    for (const [header, name] of Object.entries(mapping)) {
      if (name !== null && (typeof name !== 'string' || name === ''))
        problems.push({
          field: `mapping.${header}`,
          message: 'must be a field or relation name, id, or null',
        });
    }
  }
  if (!isRecord(relations))
    problems.push({ field: 'relations', message: 'must be an object of relation -> name|id' });
  else {
    for (const [name, how] of Object.entries(relations)) {
      if (how !== 'name' && how !== 'id')
        problems.push({ field: `relations.${name}`, message: 'must be name or id' });
    }
  }
  if (problems.length > 0) throw new ValidationError('The ImportTask is not valid.', problems);
  return {
    file,
    typeName: typeName as string,
    mode: mode as ImportMode,
    matchBy: matchBy as string,
    mapping: mapping as Record<string, string | null>,
    relations: relations as Record<string, RelationMatch>,
    ...(typeof sheet === 'string' ? { sheet } : {}),
  };
}

/** Why a field cannot be written by an import, or null when it can. */
function unwritable(field: FieldDef): string | null {
  if (field.type === 'FILE' || field.type === 'IMAGE') return 'is a file field; files cannot be imported';
  if (field.formula && !field.onlyWhenMissing) return 'is computed by a formula';
  return null;
}

/** What a name of the mapping (a field, a relation or `id`) feeds in the target class; null when nothing. */
function targetNamed(target: ImportTarget, task: ImportTask, name: string): ColumnTarget | string | null {
  if (name === ID_COLUMN) return { kind: 'id' };
  const field = target.columns.fields.find((candidate) => candidate.name === name);
  if (field) return unwritable(field) ?? { kind: 'field', field };
  const end = target.columns.relations.find((candidate) => candidate.name === name);
  if (end) return { kind: 'relation', end, match: task.relations[end.name] ?? 'name' };
  return null;
}

/**
 * Checks the task against the class: every mapping target a writable field, a settable relation
 * or `id`; every `relations` key a settable relation. ValidationError naming each bad member.
 */
export function checkTask(task: ImportTask, target: ImportTarget): void {
  const problems: Problem[] = [];
  for (const [header, name] of Object.entries(task.mapping)) {
    if (name === null) continue;
    const resolved = targetNamed(target, task, name);
    if (resolved === null)
      problems.push({
        field: `mapping.${header}`,
        message: `${name} is not a field or relation of ${target.cls.plural}`,
      });
    else if (typeof resolved === 'string')
      problems.push({ field: `mapping.${header}`, message: `${name} ${resolved}` });
  }
  for (const name of Object.keys(task.relations)) {
    if (!target.columns.relations.some((end) => end.name === name))
      problems.push({
        field: `relations.${name}`,
        message: `is not a settable relation of ${target.cls.plural}`,
      });
  }
  if (problems.length > 0) throw new ValidationError('The ImportTask does not fit the class.', problems);
}

const normal = (text: string) => text.trim().toLowerCase();

/**
 * The columns of the file's header row: a header named in `mapping` (exactly, else without case)
 * feeds its target; else `id` the id column; else a field by label or name, or a relation by name
 * (without case). Computed fields and file fields are skipped, as are headers matching nothing.
 * ValidationError when a mapped header is missing from the file or a column is fed twice.
 */
export function resolveColumns(
  header: readonly unknown[],
  task: ImportTask,
  target: ImportTarget,
): ResolvedColumns {
  const mapping = new Map(Object.entries(task.mapping).map(([key, value]) => [normal(key), value]));
  const texts = header.map((cell) => (cell === null || cell === undefined ? '' : String(cell)));
  const problems: Problem[] = [];
  const ignored: string[] = [];
  const seen = new Set<string>();
  const targets = texts.map((text): ColumnTarget | null => {
    const key = normal(text);
    if (key === '') return null;
    let resolved: ColumnTarget | string | null;
    if (mapping.has(key)) {
      const name = mapping.get(key);
      resolved = name === null || name === undefined ? null : targetNamed(target, task, name);
      if (name === null) return null;
    } else if (key === ID_COLUMN) {
      resolved = { kind: 'id' };
    } else {
      const field = target.columns.fields.find(
        (candidate) => normal(candidate.label ?? '') === key || normal(candidate.name) === key,
      );
      const end = target.columns.relations.find((candidate) => normal(candidate.name) === key);
      resolved = field
        ? (unwritable(field) ?? { kind: 'field', field })
        : end
          ? { kind: 'relation', end, match: task.relations[end.name] ?? 'name' }
          : null;
      if (typeof resolved === 'string') return null;
    }
    if (resolved === null || typeof resolved === 'string') {
      ignored.push(text);
      return null;
    }
    const identity =
      resolved.kind === 'id'
        ? ID_COLUMN
        : resolved.kind === 'field'
          ? resolved.field.name
          : resolved.end.name;
    if (seen.has(identity))
      problems.push({ field: text, message: `feeds ${identity}, which another column feeds` });
    seen.add(identity);
    return resolved;
  });
  for (const header of Object.keys(task.mapping)) {
    if (!texts.some((text) => normal(text) === normal(header)))
      problems.push({ field: `mapping.${header}`, message: 'is not a column of the file' });
  }
  if (task.mode !== 'create') {
    const matched = task.matchBy === ID_COLUMN ? ID_COLUMN : task.matchBy;
    if (!seen.has(matched))
      problems.push({
        field: 'matchBy',
        message: `no column of the file feeds ${matched}, which ${task.mode} matches on`,
      });
  }
  if (problems.length > 0)
    throw new ValidationError('The columns of the file do not fit the ImportTask.', problems);
  return { targets, ignored };
}
