/**
 * The filters of a selection as SQL conditions on an object key, with the index range that can
 * drive a query when a filter has one.
 */
import type { AccessFilter, FieldDef, Filter, Model } from '@odp/core';
import { indexKey, indexedField, ixKey } from '../index-keys.js';
import type { IndexKey } from '../index-keys.js';
import { visibleLinked } from './access.js';
import { EMPTY_KEY, FALSE, MAX_CHAR, comparableName, linkSide } from './sql.js';
import type { Condition, Driver, KeyLookup, Sql } from './sql.js';

interface CompiledFilter {
  readonly condition: Condition;
  readonly driver?: Omit<Driver, 'covers'> & { readonly coversClass: boolean };
}

/**
 * One filter as a condition. Filters on a field the class does not index are ignored (interface
 * rule 2: unknown and non-indexed fields are not filters); an operand that no value of the field's
 * type can equal matches nothing.
 */
export function compileFilter(
  model: Model,
  keys: KeyLookup,
  className: string,
  c: number,
  filter: Filter,
  access: AccessFilter,
): CompiledFilter | null {
  switch (filter.kind) {
    case 'hasClasses': {
      const classKeys = filter.classes.map((name) => keys.key(`c:${name}`));
      if (classKeys.some((key) => key === null)) return { condition: FALSE };
      return {
        condition: (n) => ({
          text: classKeys
            .map(() => `EXISTS (SELECT 1 FROM cls h WHERE h.c = ? AND h.n = ${n})`)
            .join(' AND '),
          params: classKeys,
        }),
      };
    }
    case 'relationId':
    case 'relationName':
      return compileRelationFilter(keys, filter, access);
    default:
      break;
  }
  const field = indexedField(model, className, filter.field);
  if (field === undefined) return null;
  const f = keys.key(`f:${field.name}`);
  if (f === null) return { condition: FALSE };
  const valueRange = compileValueRange(field, filter);
  if (valueRange === null) return { condition: FALSE };
  const condition: Condition = (n) => ({
    text: `EXISTS (SELECT 1 FROM ix e WHERE e.n = ${n} AND e.f = ? AND e.c = ? AND ${valueRange.text('e.v')})`,
    params: [f, c, ...valueRange.params],
  });
  const exact = filter.kind === 'equals' || filter.kind === 'empty';
  const equalsKey = filter.kind === 'equals' ? valueRange.params[0] : undefined;
  if (!exact && (field.multiple || filter.kind === 'notEmpty')) return { condition };
  return {
    condition,
    driver: {
      from: 'ix d',
      where: {
        text: `d.c = ? AND d.f = ? AND ${valueRange.text('d.v')}`,
        params: [c, f, ...valueRange.params],
      },
      n: 'd.n',
      coversClass: true,
      orderedByN: exact,
      ...(field.multiple ? {} : { sortedField: f }),
      ...(equalsKey === undefined || field.multiple ? {} : { equals: { field: f, key: equalsKey } }),
    },
  };
}

/** A condition on an index key column, with its parameters. */
export interface ValueRange {
  text(column: string): string;
  readonly params: readonly IndexKey[];
}

/** The index-key condition of a value filter on `field`, or null when no key can match. */
export function compileValueRange(field: FieldDef, filter: Filter): ValueRange | null {
  switch (filter.kind) {
    case 'equals': {
      const key = indexKey(field.type, filter.value);
      return key === null ? null : { text: (v) => `${v} = ?`, params: [ixKey(key)] };
    }
    case 'empty':
      return { text: (v) => `${v} = ${EMPTY_KEY}`, params: [] };
    case 'notEmpty':
      return { text: (v) => `${v} > ${EMPTY_KEY}`, params: [] };
    case 'startsWith': {
      const prefix = ixKey(filter.value);
      return { text: (v) => `${v} >= ? AND ${v} < ?`, params: [prefix, prefix + MAX_CHAR] };
    }
    case 'range': {
      const from = filter.from === undefined ? undefined : indexKey(field.type, filter.from);
      const to = filter.to === undefined ? undefined : indexKey(field.type, filter.to);
      if (from === null || to === null) return null;
      const parts: ((v: string) => string)[] = [];
      const params: IndexKey[] = [];
      if (from !== undefined) {
        parts.push((v) => `${v} >= ?`);
        params.push(ixKey(from));
      }
      if (to !== undefined) {
        parts.push((v) => `${v} <= ?`);
        params.push(ixKey(to));
      }
      if (from === undefined) parts.push((v) => `${v} > ${EMPTY_KEY}`);
      return { text: (v) => parts.map((part) => part(v)).join(' AND '), params };
    }
    default:
      return null;
  }
}

function compileRelationFilter(
  keys: KeyLookup,
  filter: Extract<Filter, { kind: 'relationId' | 'relationName' }>,
  access: AccessFilter,
): CompiledFilter {
  const rel = keys.key(`r:${filter.relation.key}`);
  if (rel === null) return { condition: FALSE };
  const side = linkSide(filter.relation);
  if (filter.kind === 'relationId') {
    const target = keys.objectKey(filter.id);
    if (target === null) return { condition: FALSE };
    const visibleTarget = (n: string): Sql => visibleLinked(keys, access, n);
    return {
      condition: (n) => {
        const visible = visibleTarget(`l.${side.other}`);
        return {
          text: `EXISTS (SELECT 1 FROM links l WHERE l.${side.anchor} = ${n} AND l.rel = ? AND l.${side.other} = ? AND ${visible.text})`,
          params: [rel, target, ...visible.params],
        };
      },
      driver: {
        from: 'links d',
        where: {
          text: `d.${side.other} = ? AND d.rel = ? AND ${visibleTarget(`d.${side.other}`).text}`,
          params: [target, rel, ...visibleTarget(`d.${side.other}`).params],
        },
        n: `d.${side.anchor}`,
        coversClass: false,
        orderedByN: side.other === 'dst',
      },
    };
  }
  const operand = ixKey(filter.value);
  const name = comparableName('t.name');
  const nameMatch =
    filter.match === 'equals'
      ? { text: `${name} = ?`, params: [operand] }
      : { text: `${name} >= ? AND ${name} < ?`, params: [operand, operand + MAX_CHAR] };
  const visible = visibleLinked(keys, access, 't.n');
  return {
    condition: (n) => ({
      text:
        `EXISTS (SELECT 1 FROM links l JOIN objects t ON t.n = l.${side.other} ` +
        `WHERE l.${side.anchor} = ${n} AND l.rel = ? AND ${nameMatch.text} AND ${visible.text})`,
      params: [rel, ...nameMatch.params, ...visible.params],
    }),
  };
}
