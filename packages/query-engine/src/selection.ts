import { NON_INDEXED_TYPES, NotFoundError } from '@odp/core';
import type { ClassDef, FieldDef, Filter, Model, RelationEnd, RelationRef } from '@odp/core';
import { ORDERABLE_TYPES, PREFIX_TYPES, parseOperand } from './operand.js';

/**
 * Parameters that are never filters on any endpoint (`q` and its `cursor` are served by the search
 * index; `_offset` is the start of a page by position; `after` the keyset cursor of a `next` link).
 */
export const LIST_RESERVED: ReadonlySet<string> = new Set([
  'page',
  'size',
  'sort',
  'q',
  'cursor',
  '_offset',
  'after',
]);

const SUFFIXES = ['_from', '_to', '_startswith', '_notempty', '_href'] as const;
type Suffix = (typeof SUFFIXES)[number];

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The class named by qualified name; a 404 when the model has no such class. */
export function classOf(model: Model, className: string): ClassDef {
  const cls = model.classes.get(className);
  if (!cls) throw new NotFoundError('Unknown class.');
  return cls;
}

/**
 * A value field usable in filters and sorts: known, not hidden (a filter on a hidden field would
 * reveal its values by probing), and of an indexed type.
 */
export function indexedField(cls: ClassDef, name: string): FieldDef | undefined {
  const field = cls.fields.get(name);
  if (!field || field.hidden || NON_INDEXED_TYPES.has(field.type)) return undefined;
  return field;
}

export function relationRef(end: RelationEnd): RelationRef {
  return { key: end.relation.key, direction: end.direction };
}

/**
 * Turns every query parameter that is not in `reserved` into a filter on `cls`, per the List
 * section's table: unknown names, non-indexed types and operators that do not apply to a field's
 * type are ignored; `_from`/`_to` of one field merge into one range; `_class` keeps objects having
 * every listed class. Query-string objects (`f[$ne]=`) arrive as plain unknown names and are ignored.
 */
export function parseFilters(
  model: Model,
  cls: ClassDef,
  params: URLSearchParams,
  reserved: ReadonlySet<string>,
): Filter[] {
  const filters: Filter[] = [];
  const ranges = new Map<
    string,
    { field: FieldDef; from?: string | number | boolean; to?: string | number | boolean }
  >();
  for (const key of new Set(params.keys())) {
    if (reserved.has(key)) continue;
    const raw = params.get(key) ?? '';
    if (key === '_class') {
      const classes = classesOf(model, raw);
      if (classes.length > 0) filters.push({ kind: 'hasClasses', classes });
      continue;
    }
    if (key.endsWith('.name')) {
      const end = cls.relations.get(key.slice(0, -'.name'.length));
      if (end)
        filters.push({ kind: 'relationName', relation: relationRef(end), match: 'equals', value: raw });
      continue;
    }
    const suffix = SUFFIXES.find((candidate) => key.endsWith(candidate));
    const name = suffix ? key.slice(0, -suffix.length) : key;
    const field = indexedField(cls, name);
    if (field) {
      if (suffix === '_from' || suffix === '_to') {
        if (!ORDERABLE_TYPES.has(field.type)) continue;
        const range = ranges.get(name) ?? { field };
        range[suffix === '_from' ? 'from' : 'to'] = parseOperand(key, field.type, raw);
        ranges.set(name, range);
      } else {
        const filter = fieldFilter(field, key, suffix, raw);
        if (filter) filters.push(filter);
      }
      continue;
    }
    const end = cls.relations.get(name);
    if (end) {
      const filter = relationFilter(end, suffix, raw);
      if (filter) filters.push(filter);
    }
  }
  for (const { field, from, to } of ranges.values()) {
    filters.push({
      kind: 'range',
      field: field.name,
      type: field.type,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    });
  }
  return filters;
}

function fieldFilter(
  field: FieldDef,
  key: string,
  suffix: Suffix | undefined,
  raw: string,
): Filter | undefined {
  const { name, type } = field;
  switch (suffix) {
    case undefined:
      if (raw === '') return { kind: 'empty', field: name, type };
      if (type === 'FILE' || type === 'IMAGE') return undefined;
      return { kind: 'equals', field: name, type, value: parseOperand(key, type, raw) };
    case '_startswith':
      return PREFIX_TYPES.has(type) ? { kind: 'startsWith', field: name, type, value: raw } : undefined;
    case '_notempty':
      return { kind: 'notEmpty', field: name, type };
    default:
      return undefined;
  }
}

function relationFilter(end: RelationEnd, suffix: Suffix | undefined, raw: string): Filter | undefined {
  const relation = relationRef(end);
  switch (suffix) {
    case undefined:
      return raw === '' ? undefined : { kind: 'relationName', relation, match: 'equals', value: raw };
    case '_startswith':
      return { kind: 'relationName', relation, match: 'startsWith', value: raw };
    case '_href':
      // Only the trailing UUID of a URI is read; anything else can match no object.
      return {
        kind: 'relationId',
        relation,
        id: raw.length >= 36 && isUuid(raw.slice(-36)) ? raw.slice(-36) : raw,
      };
    default:
      return undefined;
  }
}

/** Qualified names of the comma-separated plural names that the model knows. */
function classesOf(model: Model, plurals: string): string[] {
  return plurals
    .split(',')
    .map((plural) => model.byPlural.get(plural.trim())?.name)
    .filter((name): name is string => name !== undefined);
}
