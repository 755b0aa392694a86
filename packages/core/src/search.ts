/**
 * The full-text search port. One index per tenant; adapters: the embedded SQLite FTS5 index (kept in
 * the tenant's document database, updated in the same transaction as the object) and, for scale-out,
 * an external engine fed through `index`/`remove`.
 *
 * What is indexed is fixed here, once for every adapter: {@link searchTextOf}. How a query string is
 * understood is fixed here too: {@link searchTerms} (each term a prefix, all terms AND-combined,
 * case- and accent-insensitive).
 */
import { ValidationError } from './errors.js';
import type { AccessFilter } from './account.js';
import type { Model } from './model.js';
import { NON_SEARCHABLE_TYPES } from './model.js';
import { derivedSourcesOf } from './derived.js';
import type { StoredObject } from './store.js';

/** One object's entry in the index. */
export interface SearchDocument {
  readonly id: string;
  /** Every class of the object (qualified), for the class scope. */
  readonly classes: readonly string[];
  /** The acIds of the object's ACL rows, for the access filter. */
  readonly aclIds: readonly string[];
  /** The combined text of the object (see {@link searchTextOf}). */
  readonly text: string;
}

export interface SearchQuery {
  /** The user's query string, as typed; adapters normalise it with {@link searchTerms}. */
  readonly text: string;
  /** Qualified class names; an object matches when it has at least one of them. Never empty. */
  readonly classes: readonly string[];
  /** Page size (the caller clamps it). */
  readonly size: number;
  /** The `next` cursor of the previous page, as returned; absent for the first page. */
  readonly cursor?: string;
}

export interface SearchPage {
  /** Ids of the matching visible objects, best first. */
  readonly ids: readonly string[];
  /** Opaque cursor of the following page; null when this is the last page. */
  readonly next: string | null;
}

export interface SearchIndex {
  /**
   * True when the document store keeps this index in step inside its own write transaction (the
   * embedded adapter): callers then never call `index`/`remove` on writes, only `rebuild` for repairs.
   */
  readonly maintainedByStore: boolean;
  /** Adds or replaces the entries of these objects. */
  index(documents: readonly SearchDocument[]): Promise<void>;
  /** Removes the entries of these object ids (unknown ids are ignored). */
  remove(ids: readonly string[]): Promise<void>;
  /**
   * One page of matches, ranked (see the adapter's docs for the ranking), restricted to the class
   * scope and to what `access` lets the caller read, inside the engine's query.
   * An empty query (no term after normalisation) is an empty last page.
   * Throws ValidationError for a cursor that is forged, damaged or belongs to another query, and
   * for a query with more than {@link MAX_SEARCH_TERMS} terms.
   */
  search(query: SearchQuery, access: AccessFilter): Promise<SearchPage>;
  /** Drops every entry and re-indexes every stored object with the model's rule. Returns the count. */
  rebuild(model: Model): Promise<number>;
}

/** More terms than this in one query are refused (400): no user types them, an attacker might. */
export const MAX_SEARCH_TERMS = 16;
/** Terms are cut to this many characters (a longer prefix never matches more). */
export const MAX_SEARCH_TERM_LENGTH = 64;

/**
 * The terms of a query string: runs of letters, digits and combining marks (any script), each cut
 * to {@link MAX_SEARCH_TERM_LENGTH} characters. Everything else - quotes, `*`, `:`, `-`,
 * parentheses - only separates terms, and adapters quote every term, so operators like NEAR, AND,
 * OR are plain words and a query can never carry engine syntax. Case and accents are folded by the
 * engine's analyser, the same way as the indexed text. Throws ValidationError above
 * {@link MAX_SEARCH_TERMS} terms.
 */
export function searchTerms(text: string): string[] {
  const terms = (text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((term) =>
    term.slice(0, MAX_SEARCH_TERM_LENGTH),
  );
  if (terms.length > MAX_SEARCH_TERMS) {
    throw new ValidationError(`A search query may have at most ${MAX_SEARCH_TERMS} terms.`, [
      { field: 'q', message: `at most ${MAX_SEARCH_TERMS} terms` },
    ]);
  }
  return terms;
}

/**
 * The combined text of an object: its name and the values of every searchable field of its
 * classes (all value fields except LONGTEXT, JSON, SECRET, FILE, IMAGE). Hidden fields are left
 * out, so a search can never reveal a value no response shows, and so are derived fields (values
 * computed from other objects, see derived.ts: a hit through one would reveal a value its reader
 * may not read); BOOLEAN values are left out (the words true/false would match every object).
 * LIST values contribute their key and label.
 */
export function searchTextOf(model: Model, object: StoredObject): string {
  const parts: string[] = object.name === null ? [] : [object.name];
  const seen = new Set<string>(derivedSourcesOf(model, object.classes).keys());
  for (const className of object.classes) {
    for (const field of model.classes.get(className)?.fields.values() ?? []) {
      if (seen.has(field.name) || NON_SEARCHABLE_TYPES.has(field.type) || field.type === 'BOOLEAN') continue;
      if (field.hidden) continue;
      seen.add(field.name);
      const labels = field.list === undefined ? undefined : model.lists.get(field.list)?.values;
      for (const value of fieldValues(object.values[field.name], field.history)) {
        parts.push(String(value));
        const label = labels?.find((entry) => entry.key === value)?.label;
        if (label !== undefined) parts.push(label);
      }
    }
  }
  return parts.join(' ');
}

/**
 * The scalar values of a stored field value: the elements of a multi-valued field, the `current`
 * value of a history-enabled field (stored as `{current, history}`), else the value itself.
 */
export function fieldValues(stored: unknown, history: boolean): (string | number | boolean)[] {
  const value =
    history && stored !== null && typeof stored === 'object' && !Array.isArray(stored) && 'current' in stored
      ? (stored as { current: unknown }).current
      : stored;
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  return list.filter(
    (item): item is string | number | boolean =>
      typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean',
  );
}
