/**
 * A field of a class file as a FieldDef: its declaration checked (types, lists, defaults) and its
 * formulas parsed.
 */
import type { DataType, FieldDef, Formula, ListDef } from '@odp/core';
import { NON_INDEXED_TYPES, NUMERIC_TYPES } from '@odp/core';
import type { FieldFile } from './files.js';
import type { IssueList } from './issues.js';

/** Parses a formula found at `path` of `file`, or reports why it does not parse. */
export type ParseAt = (source: string, file: string, path: string, className: string) => Formula | undefined;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const TIME_PATTERN = /^\d{2}:\d{2}(:\d{2})?$/;

/** Why a literal default does not fit its field, or undefined when it fits. */
function literalProblem(type: DataType, value: unknown, list: ListDef | undefined): string | undefined {
  if (NUMERIC_TYPES.has(type)) {
    if (typeof value !== 'number') return 'must be a number';
    return type === 'INTEGER' && !Number.isInteger(value) ? 'must be an integer' : undefined;
  }
  switch (type) {
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'DATE':
      return typeof value === 'string' && DATE_PATTERN.test(value) ? undefined : 'must be a YYYY-MM-DD date';
    case 'TIME':
      return typeof value === 'string' && TIME_PATTERN.test(value) ? undefined : 'must be HH:MM or HH:MM:SS';
    case 'LIST':
      if (typeof value !== 'string') return 'must be a key of the list';
      return list && !list.values.some((v) => v.key === value)
        ? `'${value}' is not a key of list ${list.name}`
        : undefined;
    case 'JSON':
      return undefined;
    case 'ARRAY':
      return Array.isArray(value) ? undefined : 'must be an array';
    case 'FILE':
    case 'IMAGE':
    case 'SECRET':
      return `a ${type} field cannot have a default`;
    default:
      return typeof value === 'string' ? undefined : 'must be a string';
  }
}

function isFormulaDefault(value: unknown): value is { formula: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { formula?: unknown }).formula === 'string'
  );
}

export function checkField(
  field: FieldFile,
  file: string,
  at: string,
  lists: ReadonlyMap<string, ListDef>,
  brokenListNames: ReadonlySet<string>,
  issues: IssueList,
): void {
  const listName = field.list ?? undefined;
  if (field.type === 'LIST' && listName === undefined) {
    issues.error(file, at, `LIST field '${field.name}' needs a list`);
  }
  if (listName !== undefined && field.type !== 'LIST') {
    issues.warning(file, `${at}/list`, `'list' has no effect on a ${field.type} field`);
  }
  if (listName !== undefined && !lists.has(listName) && !brokenListNames.has(listName)) {
    issues.error(file, `${at}/list`, `Unknown list '${listName}'`);
  }
  if (
    field.unique &&
    (NON_INDEXED_TYPES.has(field.type) || field.type === 'FILE' || field.type === 'IMAGE')
  ) {
    issues.error(file, `${at}/unique`, `A ${field.type} field cannot be unique: the type is not indexed`);
  }
  if (field.default !== undefined && field.default !== null && field.required !== true) {
    // The interface applies defaults to required fields left empty only: on an optional field the
    // declared default would silently never apply.
    issues.warning(
      file,
      `${at}/default`,
      `The default of '${field.name}' never applies: defaults fill required fields left empty, and the field is not required`,
    );
  }
  if (field.onlyWhenMissing && !field.formula) {
    issues.warning(file, `${at}/onlyWhenMissing`, `'onlyWhenMissing' has no effect without a formula`);
  }
  if (field.default !== undefined && field.default !== null && !isFormulaDefault(field.default)) {
    const list = listName === undefined ? undefined : lists.get(listName);
    const values = field.multiple && Array.isArray(field.default) ? field.default : [field.default];
    const problem = values
      .map((v: unknown) => literalProblem(field.type, v, list))
      .find((p) => p !== undefined);
    if (problem !== undefined) issues.error(file, `${at}/default`, `The default ${problem}`);
  }
}

export function fieldDef(
  field: FieldFile,
  className: string,
  file: string,
  at: string,
  parseAt: ParseAt,
): FieldDef {
  let defaultValue: FieldDef['default'];
  if (isFormulaDefault(field.default)) {
    const formula = parseAt(field.default.formula, file, `${at}/default/formula`, className);
    if (formula) defaultValue = { formula };
  } else if (field.default !== undefined && field.default !== null) {
    defaultValue = { value: field.default };
  }
  const formula = field.formula ? parseAt(field.formula, file, `${at}/formula`, className) : undefined;
  return {
    name: field.name,
    type: field.type,
    required: field.required ?? false,
    multiple: field.multiple ?? false,
    ...(defaultValue ? { default: defaultValue } : {}),
    ...(formula ? { formula } : {}),
    onlyWhenMissing: field.onlyWhenMissing ?? false,
    hidden: field.hidden ?? false,
    history: field.history ?? false,
    ...(field.list ? { list: field.list } : {}),
    unique: field.unique ?? false,
    ...(field.label === undefined ? {} : { label: field.label }),
    declaredOn: className,
  };
}
