/**
 * How field values become entries of a store's typed value index, shared by every store adapter:
 * which fields of a class are indexed, and the one comparable key of a value per data type, used
 * alike for stored values and for filter operands so that comparisons are typed (numbers numeric,
 * dates as ISO strings).
 */
import { NON_INDEXED_TYPES } from './model.js';
import type { ClassDef, DataType, FieldDef, Model } from './model.js';
import { fieldValues } from './search.js';
import { derivedSources } from './derived.js';

/** A value as held in the index: TEXT families as strings, numbers, BOOLEAN as 0/1. */
export type IndexKey = string | number;

const NUMERIC: ReadonlySet<DataType> = new Set(['INTEGER', 'DECIMAL', 'CURRENCY', 'PERCENTAGE']);

const indexedFieldsCache = new WeakMap<ClassDef, readonly FieldDef[]>();

/** The indexed fields of a class (own, inherited), in a stable order; computed once per ClassDef. */
export function indexedFields(classDef: ClassDef): readonly FieldDef[] {
  let fields = indexedFieldsCache.get(classDef);
  if (fields === undefined) {
    fields = [...classDef.fields.values()]
      .filter((field) => !NON_INDEXED_TYPES.has(field.type))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    indexedFieldsCache.set(classDef, fields);
  }
  return fields;
}

/** The indexed field `name` of `className`, or undefined when the class has no such indexed field. */
export function indexedField(model: Model, className: string, name: string): FieldDef | undefined {
  const field = model.classes.get(className)?.fields.get(name);
  return field === undefined || NON_INDEXED_TYPES.has(field.type) ? undefined : field;
}

/**
 * The comparable key of one value of a field of type `type`, or null when the value cannot be
 * held by such a field (a filter operand of the wrong kind then matches nothing).
 * DATETIME values are normalised to UTC ISO strings; FILE/IMAGE values are keyed by file name.
 */
export function indexKey(type: DataType, value: unknown): IndexKey | null {
  if (value === null || value === undefined) return null;
  if (NUMERIC.has(type)) {
    const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    return Number.isFinite(number) && !(typeof value === 'string' && value.trim() === '') ? number : null;
  }
  switch (type) {
    case 'BOOLEAN':
      if (value === true || value === 'true') return 1;
      if (value === false || value === 'false') return 0;
      return null;
    case 'DATETIME': {
      if (typeof value !== 'string') return null;
      const time = Date.parse(value);
      return Number.isNaN(time) ? value : new Date(time).toISOString();
    }
    case 'FILE':
    case 'IMAGE':
      if (typeof value === 'object' && 'fileName' in value) {
        const fileName = (value as { fileName: unknown }).fileName;
        return typeof fileName === 'string' ? fileName : null;
      }
      return typeof value === 'string' ? value : null;
    default:
      return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  }
}

/**
 * Text as every store compares it case-insensitively (filters, sorts, `unique` checks, relation
 * names): Unicode case folding, the same in every locale. Lower-, upper- then lower-casing applies
 * the full case mappings of the Unicode database, so:
 * - letters of every script compare with their other case: É/é, Ä/ä, Ω/ω (and the Ohm sign),
 *   Σ/σ/ς, K/k (and the Kelvin sign), ligatures with their letters (ﬁ/fi);
 * - ß and ẞ fold to "ss": "Straße" equals "STRASSE" and "strasse" (as their upper case does);
 * - Turkish dotted capital İ folds to "i̇" (i with a combining dot), equal to itself in either
 *   case but not to I or i; dotless ı folds with I and i (no locale rule merges or splits them);
 * - no Unicode normalisation: a precomposed é and e + combining acute differ.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().toUpperCase().toLowerCase();
}

/** A key read back from the index in the value's API form (BOOLEAN 0/1 back to false/true). */
export function fromIndexKey(type: DataType, key: unknown): unknown {
  return type === 'BOOLEAN' ? key === 1 : key;
}

/** The distinct index keys of a stored field value (empty when the field has no value). */
export function indexKeysOf(field: FieldDef, stored: unknown): IndexKey[] {
  const raw =
    field.type === 'FILE' || field.type === 'IMAGE'
      ? (Array.isArray(stored) ? (stored as unknown[]) : [stored]).filter((item) => item !== undefined)
      : fieldValues(stored, field.history);
  const keys = new Set<IndexKey>();
  for (const item of raw) {
    const key = indexKey(field.type, item);
    if (key !== null) keys.add(key);
  }
  return [...keys];
}

/**
 * A fingerprint of everything the derived data (value index, search text) depends on: when a
 * newly applied model changes it, the store re-derives that data for every object.
 */
export function indexSignature(model: Model): string {
  const classes = [...model.classes.values()]
    .map((classDef) => [
      classDef.name,
      [...classDef.fields.values()]
        .map((field) => [
          field.name,
          field.type,
          field.multiple,
          field.history,
          field.hidden,
          field.list ?? '',
          // Derived fields are left out of the search text.
          derivedSources(model, classDef.name).has(field.name),
        ])
        .sort(),
    ])
    .sort();
  const lists = [...model.lists.values()].map((list) => [list.name, list.values]).sort();
  // The text comparison rule: changing it re-derives the stored comparable keys.
  return JSON.stringify({ classes, lists, textKeys: 'foldCase-1' });
}
