/**
 * Run-time value rules shared by the evaluator and the built-in functions: how values coerce, compare
 * and how dates are read. Every rule answers null rather than throwing on values it cannot use.
 */

/** A value a formula can produce. Arrays come from multi-valued fields and relations. */
export type FormulaValue = string | number | boolean | null | readonly FormulaValue[] | FormulaJson;
/** A JSON, FILE or IMAGE value passed through unchanged. */
export interface FormulaJson {
  readonly [key: string]: unknown;
}

export function isTruthy(value: FormulaValue): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

export function toNumber(value: FormulaValue): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

export function toText(value: FormulaValue): string | null {
  if (value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    return value
      .map((v) => toText(v))
      .filter((v): v is string => v !== null)
      .join(', ');
  }
  return JSON.stringify(value);
}

/** Flattens arrays (one level per nesting) and drops nulls: the values an aggregate works on. */
export function flatValues(values: readonly FormulaValue[]): FormulaValue[] {
  const out: FormulaValue[] = [];
  for (const value of values) {
    if (Array.isArray(value)) out.push(...flatValues(value));
    else if (value !== null) out.push(value);
  }
  return out;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Reads a DATE (`YYYY-MM-DD`, as UTC midnight) or DATETIME string; null for anything else. */
export function toDate(value: FormulaValue): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function isDateOnly(value: FormulaValue): boolean {
  return typeof value === 'string' && DATE_ONLY.test(value);
}

export function formatDateOnly(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Structural equality: numbers, strings, booleans and null by value, arrays element-wise. */
export function valuesEqual(a: FormulaValue, b: FormulaValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => valuesEqual(v, b[i] as FormulaValue));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return a === b;
}

/** Orders two numbers, two strings, or two dates; null when they are not comparable. */
export function compareValues(a: FormulaValue, b: FormulaValue): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return null;
}
