/**
 * History-enabled fields (model-format section 3): the stored value is the plain current value, so
 * filters, sorts and uniqueness work on it; the entries live beside the fields under the reserved
 * values key {@link HISTORY_KEY} (model names never start with `_`), newest first.
 */
import type { FieldDef } from '@odp/core';
import { sameJson } from './encode.js';

export const HISTORY_KEY = '_history';

export interface HistoryEntry {
  readonly value: unknown;
  readonly validFrom: string;
  readonly modifiedBy: string;
}

export function historyOf(values: Readonly<Record<string, unknown>>): Record<string, HistoryEntry[]> {
  const history = values[HISTORY_KEY];
  return typeof history === 'object' && history !== null ? (history as Record<string, HistoryEntry[]>) : {};
}

/**
 * Appends an entry for every history field whose value differs between `before` and `after`
 * (`before` undefined for a create). Mutates `after`.
 */
export function recordHistory(
  fields: Iterable<FieldDef>,
  before: Readonly<Record<string, unknown>> | undefined,
  after: Record<string, unknown>,
  validFrom: string,
  modifiedBy: string,
): void {
  const history = { ...historyOf(after) };
  let changed = false;
  for (const field of fields) {
    if (!field.history) continue;
    const previous = before?.[field.name] ?? null;
    const current = after[field.name] ?? null;
    if (before !== undefined ? sameJson(previous, current) : current === null) continue;
    history[field.name] = [{ value: current, validFrom, modifiedBy }, ...(history[field.name] ?? [])];
    changed = true;
  }
  if (changed) after[HISTORY_KEY] = history;
}
