/**
 * How one value of an object becomes a spreadsheet cell, and how a cell becomes a value of a create
 * or patch body again (docs/excel.md, Columns). The two directions are inverse on everything an
 * export writes, so a workbook imports back to the same values:
 *
 * | type | cell written | cell read |
 * |---|---|---|
 * | TEXT, TEXTBLOCK, LONGTEXT, EMAIL, TIME | the text | text (numbers as written) |
 * | INTEGER, DECIMAL | a number | a number, or text holding one |
 * | CURRENCY | a number, format `#,##0.00` | as DECIMAL |
 * | PERCENTAGE | the number as stored (21 for 21 %), format `0.##"%"` | as DECIMAL |
 * | BOOLEAN | TRUE / FALSE | a boolean, or true/false/yes/no/1/0 |
 * | DATE | a date, format `yyyy-mm-dd` | a date, or text `YYYY-MM-DD` |
 * | DATETIME | a date-time (UTC), format `yyyy-mm-dd hh:mm:ss` | a date-time (UTC), or ISO-8601 text |
 * | LIST | the value's label | a key, or a label (case-insensitive) |
 * | JSON, ARRAY | the JSON text | JSON text |
 * | FILE, IMAGE | the file names, one per line | never imported |
 * | relation | the linked objects' names, one per line | names (or ids, when asked), one per line |
 *
 * A field with `multiple: true` holds one value per line, each written as text.
 *
 * A text cell that a spreadsheet would take for a formula once the sheet is saved as CSV and opened
 * again (it starts with `= + - @`, a tab or a carriage return: OWASP's CSV injection list) is written
 * with a leading apostrophe, the spreadsheet's "this is text" mark; reading takes one off again
 * ({@link guardFormula}, {@link unguardFormula}).
 */
import type { FieldDef, ListDef } from '@odp/core';

/** What a spreadsheet cell holds, as exceljs reads and writes it. */
export type CellValue = string | number | boolean | Date | null;

/** The number formats of typed cells. */
export const NUMBER_FORMATS: Partial<Record<FieldDef['type'], string>> = {
  CURRENCY: '#,##0.00',
  PERCENTAGE: '0.##"%"',
  DATE: 'yyyy-mm-dd',
  DATETIME: 'yyyy-mm-dd hh:mm:ss',
};

/** Texts a spreadsheet would take for a formula, after any apostrophes already guarding them. */
const FORMULA_LIKE = /^'*[=+\-@\t\r]/;
/** Texts that {@link guardFormula} wrote: one apostrophe more than their value holds. */
const GUARDED = /^'+[=+\-@\t\r]/;

/**
 * `text` as a cell that no spreadsheet evaluates, also after a CSV re-save: a formula-like text gets
 * a leading apostrophe (so does one that already starts with apostrophes, so reading is exact).
 */
export function guardFormula(text: string): string {
  return FORMULA_LIKE.test(text) ? `'${text}` : text;
}

/** The value of a cell {@link guardFormula} wrote: one leading apostrophe off a guarded text. */
function unguardFormula(cell: CellValue): CellValue {
  return typeof cell === 'string' && GUARDED.test(cell) ? cell.slice(1) : cell;
}

/** The result of reading a cell: the body value, or why the cell cannot be one. */
export type ReadCell =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

const readOk = (value: unknown): ReadCell => ({ ok: true, value });
const readFail = (message: string): ReadCell => ({ ok: false, message });

function labelOf(list: ListDef | undefined, key: unknown): string {
  return list?.values.find((entry) => entry.key === key)?.label ?? String(key);
}

/** One value (an element of a multiple field) in the text a multi-line cell holds. */
function asText(field: FieldDef, value: unknown, list: ListDef | undefined): string {
  switch (field.type) {
    case 'LIST':
      return labelOf(list, value);
    case 'JSON':
    case 'ARRAY':
      return JSON.stringify(value);
    case 'FILE':
    case 'IMAGE':
      return typeof value === 'object' && value !== null
        ? String((value as { fileName?: unknown }).fileName)
        : '';
    default:
      return String(value);
  }
}

/** The cell of a field value as rendered in a DataObject (history fields give their `current`). */
export function cellOf(field: FieldDef, rendered: unknown, list: ListDef | undefined): CellValue {
  const value = field.history && isObject(rendered) && 'current' in rendered ? rendered['current'] : rendered;
  if (value === undefined || value === null) return null;
  if (field.multiple || (Array.isArray(value) && field.type !== 'JSON' && field.type !== 'ARRAY')) {
    const values = Array.isArray(value) ? value : [value];
    return guardFormula(values.map((item: unknown) => asText(field, item, list)).join('\n'));
  }
  switch (field.type) {
    case 'INTEGER':
    case 'DECIMAL':
    case 'CURRENCY':
    case 'PERCENTAGE':
    case 'BOOLEAN':
      return value as number | boolean;
    case 'DATE':
      return new Date(`${String(value)}T00:00:00.000Z`);
    case 'DATETIME':
      return new Date(String(value));
    default:
      return guardFormula(asText(field, value, list));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A raw exceljs cell value as a plain one: rich text as its text, a hyperlink as its text, a
 * formula as its cached result, an error value as null.
 */
export function plainCell(raw: unknown): CellValue {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' || raw instanceof Date) {
    return raw;
  }
  if (isObject(raw)) {
    if (Array.isArray(raw['richText'])) {
      return (raw['richText'] as { text?: unknown }[]).map((part) => String(part.text ?? '')).join('');
    }
    if ('result' in raw) return plainCell(raw['result']);
    if ('text' in raw) return plainCell(raw['text']);
  }
  return null;
}

/** Whether a cell holds nothing (no value, or only blanks). */
export function isBlank(cell: CellValue): boolean {
  return cell === null || (typeof cell === 'string' && cell.trim() === '');
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function dateText(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** A date-time cell as an instant, rounded to the millisecond (Excel keeps days as a float). */
function instantText(date: Date): string {
  return new Date(Math.round(date.getTime())).toISOString();
}

function numberOf(cell: CellValue): number | null {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'string' && cell.trim() !== '') {
    const parsed = Number(cell.trim());
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'ja', 'waar']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'nee', 'onwaar']);

/** One value of `field` from a cell (or one line of a multi-line cell). */
function readOne(field: FieldDef, cell: CellValue, list: ListDef | undefined): ReadCell {
  switch (field.type) {
    case 'INTEGER':
    case 'DECIMAL':
    case 'CURRENCY':
    case 'PERCENTAGE': {
      const number = numberOf(cell);
      return number === null ? readFail('must be a number') : readOk(number);
    }
    case 'BOOLEAN': {
      if (typeof cell === 'boolean') return readOk(cell);
      const word = String(cell).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return readOk(true);
      if (FALSE_WORDS.has(word)) return readOk(false);
      return readFail('must be true or false');
    }
    case 'DATE':
      return readOk(cell instanceof Date ? dateText(cell) : String(cell).trim());
    case 'DATETIME':
      return readOk(cell instanceof Date ? instantText(cell) : String(cell).trim());
    case 'TIME':
      return readOk(
        cell instanceof Date
          ? `${pad(cell.getUTCHours())}:${pad(cell.getUTCMinutes())}:${pad(cell.getUTCSeconds())}`
          : String(cell).trim(),
      );
    case 'LIST': {
      const text = String(cell).trim();
      const entry =
        list?.values.find((candidate) => candidate.key === text) ??
        list?.values.find((candidate) => candidate.label.toLowerCase() === text.toLowerCase());
      return readOk(entry ? entry.key : text);
    }
    case 'JSON':
    case 'ARRAY':
      try {
        return readOk(JSON.parse(String(cell)) as unknown);
      } catch {
        return readFail('must be JSON text');
      }
    case 'FILE':
    case 'IMAGE':
      return readFail('files cannot be imported');
    default:
      return readOk(cell instanceof Date ? instantText(cell) : String(cell));
  }
}

/**
 * The body value of `field` from a cell: null for a blank cell (the field is cleared on update and
 * left empty on create), an array for a multiple field (one value per line).
 */
export function readCell(field: FieldDef, cell: CellValue, list: ListDef | undefined): ReadCell {
  if (isBlank(cell)) return readOk(null);
  if (!field.multiple) return readOne(field, unguardFormula(cell), list);
  const values: unknown[] = [];
  for (const line of splitLines(cell)) {
    const read = readOne(field, line, list);
    if (!read.ok) return read;
    values.push(read.value);
  }
  return readOk(values);
}

/** The non-blank lines of a cell (multi-valued fields and relations hold one value per line). */
export function splitLines(cell: CellValue): string[] {
  if (cell === null) return [];
  const unguarded = unguardFormula(cell);
  const text = unguarded instanceof Date ? unguarded.toISOString() : String(unguarded);
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
