import { ValidationError } from '@odp/core';
import type { DataType, ValueOperand } from '@odp/core';

const NUMBER_PATTERN = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const TIME_PATTERN = /^\d{2}:\d{2}(:\d{2})?$/;

/** Types whose values have a meaningful order, so `_from`/`_to` ranges and sorting apply. */
export const ORDERABLE_TYPES: ReadonlySet<DataType> = new Set([
  'TEXT',
  'TEXTBLOCK',
  'EMAIL',
  'INTEGER',
  'DECIMAL',
  'CURRENCY',
  'PERCENTAGE',
  'DATE',
  'DATETIME',
  'TIME',
  'LIST',
]);

/** Types stored as strings, so a prefix match (`_startswith`) applies. */
export const PREFIX_TYPES: ReadonlySet<DataType> = new Set([
  'TEXT',
  'TEXTBLOCK',
  'EMAIL',
  'LIST',
  'DATE',
  'DATETIME',
  'TIME',
]);

/**
 * Converts a query-string value to the stored form of a field of type `type`, so the store compares
 * like with like: numbers for numeric types, booleans for BOOLEAN, UTC ISO timestamps for DATETIME.
 * A value that can never equal a stored value of the type is a 400 naming the parameter.
 */
export function parseOperand(parameter: string, type: DataType, raw: string): ValueOperand {
  switch (type) {
    case 'INTEGER':
    case 'DECIMAL':
    case 'CURRENCY':
    case 'PERCENTAGE': {
      const value = Number(raw);
      if (!NUMBER_PATTERN.test(raw.trim()) || !Number.isFinite(value)) throw invalid(parameter, 'a number');
      if (type === 'INTEGER' && !Number.isInteger(value)) throw invalid(parameter, 'an integer');
      return value;
    }
    case 'BOOLEAN':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw invalid(parameter, 'true or false');
    case 'DATE':
      if (!DATE_PATTERN.test(raw) || Number.isNaN(Date.parse(raw)))
        throw invalid(parameter, 'a date YYYY-MM-DD');
      return raw;
    case 'DATETIME': {
      const time = Date.parse(raw);
      if (Number.isNaN(time)) throw invalid(parameter, 'an ISO-8601 timestamp');
      return new Date(time).toISOString();
    }
    case 'TIME':
      if (!TIME_PATTERN.test(raw)) throw invalid(parameter, 'a time HH:MM or HH:MM:SS');
      return raw;
    default:
      return raw;
  }
}

function invalid(parameter: string, expected: string): ValidationError {
  return new ValidationError(`Query parameter ${parameter} must be ${expected}.`, [
    { field: parameter, message: `must be ${expected}` },
  ]);
}
