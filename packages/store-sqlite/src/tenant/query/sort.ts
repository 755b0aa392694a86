/**
 * The sort of a list as SQL: the index range that yields rows in the list's order (when there is
 * one), the ORDER BY terms, the seek past a position and the sort key of a row.
 */
import type { AccessFilter, ListPosition, Model, Sort } from '@odp/core';
import { indexedField } from '../index-keys.js';
import { hiddenSource, visibleLinked } from './access.js';
import { EMPTY_KEY, comparableName, linkSide } from './sql.js';
import type { Driver, KeyLookup, Sql } from './sql.js';

/** The sort of a list as an index driver (when the sort field's index range can serve the order) and ORDER BY terms. */
export interface CompiledSort {
  /** The key of the sorted field, when the sort is on a single-valued indexed field. */
  readonly field?: number;
  /** The index range that yields rows in sort order, when the key is a single-valued field. */
  readonly driver?: Driver;
  /** ORDER BY terms for the given driver. */
  orderBy(driver: Driver): Sql;
  /**
   * The sort key of the object `n` as the order compares it (NULL or EMPTY_KEY when it has none), or
   * null when the list is in creation order (no sort, or a sort on a field the class does not index).
   */
  key(n: string): Sql | null;
  /**
   * The rows of `driver` that come after `position` in this order (keyset paging). On the sort
   * field's own index range it is a row-value range on `(v, n)` of that index, so the page starts
   * with a seek; in creation order a range on `n`.
   */
  after(driver: Driver, position: ListPosition): Sql;
}

/**
 * The value of a single-valued field `f` of class `c`'s members by object key, from a narrower
 * table than `ix` when the store has one (ClassColumns.valueOf); undefined otherwise.
 */
export type ClassValue = (c: number, f: number) => ((n: string) => Sql) | undefined;

export function compileSort(
  model: Model,
  keys: KeyLookup,
  className: string,
  sort: Sort | undefined,
  access: AccessFilter,
  classValue: ClassValue = () => undefined,
): CompiledSort {
  const creationOrder: CompiledSort = {
    orderBy: (driver) => ({ text: `${driver.n}`, params: [] }),
    key: () => null,
    after: (driver, position) => ({ text: `${driver.n} > ?`, params: [position.seq] }),
  };
  if (sort === undefined) return creationOrder;
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  const pick = sort.direction === 'desc' ? 'max' : 'min';
  /** `expression` (of the row's key, NULL when it has none) after the position, in the sort's direction. */
  const seek = (expression: Sql, n: string, position: ListPosition, nullable: boolean): Sql => {
    const value = nullable ? `COALESCE(${expression.text}, ${EMPTY_KEY}) COLLATE NOCASE` : expression.text;
    const bound = position.key === null ? EMPTY_KEY : '?';
    return {
      text: `(${value}, ${n}) ${sort.direction === 'desc' ? '<' : '>'} (${bound}, ?)`,
      params: [...expression.params, ...(position.key === null ? [] : [position.key]), position.seq],
    };
  };
  /** A sort by a per-object key expression (no index range serves it): the selection is sorted. */
  const byExpression = (key: (n: string) => Sql): CompiledSort => ({
    orderBy: (driver) => {
      const expression = key(driver.n);
      return {
        text: `${expression.text} COLLATE NOCASE ${dir}, ${driver.n} ${dir}`,
        params: expression.params,
      };
    },
    key,
    after: (driver, position) => seek(key(driver.n), driver.n, position, true),
  });
  if (sort.key.kind === 'relationName') {
    const rel = keys.key(`r:${sort.key.relation.key}`);
    const side = linkSide(sort.key.relation);
    const visible = visibleLinked(keys, access, 't.n');
    const key = (n: string): Sql => ({
      text:
        `(SELECT ${pick}(${comparableName('t.name')}) FROM links l JOIN objects t ON t.n = l.${side.other} ` +
        `WHERE l.${side.anchor} = ${n} AND l.rel = ? AND ${visible.text})`,
      params: [rel, ...visible.params],
    });
    return byExpression(key);
  }
  const field = indexedField(model, className, sort.key.field);
  const c = keys.key(`c:${className}`);
  const f = field === undefined ? null : keys.key(`f:${field.name}`);
  if (field === undefined || f === null || c === null) return creationOrder;
  const stored =
    (field.multiple ? undefined : classValue(c, f)) ??
    ((n: string): Sql => ({
      text: `(SELECT ${field.multiple ? `${pick}(s.v)` : 's.v'} FROM ix s WHERE s.n = ${n} AND s.f = ? AND s.c = ?)`,
      params: [f, c],
    }));
  const hidden = hiddenSource(model, keys, className, field.name, access);
  if (hidden !== null) {
    // A derived value the reader may not see sorts as empty; the index range (in value order) cannot
    // serve such an order.
    const key = (n: string): Sql => {
      const mask = hidden(n);
      const value = stored(n);
      return {
        text: `(CASE WHEN ${mask.text} THEN ${EMPTY_KEY} ELSE ${value.text} END)`,
        params: [...mask.params, ...value.params],
      };
    };
    return byExpression(key);
  }
  const sortDriver: Driver | undefined = field.multiple
    ? undefined
    : {
        from: 'ix d',
        where: { text: 'd.c = ? AND d.f = ?', params: [c, f] },
        n: 'd.n',
        covers: [0],
        orderedByN: false,
        sortedField: f,
      };
  return {
    driver: sortDriver,
    ...(field.multiple ? {} : { field: f }),
    orderBy: (driver) => {
      if (driver.sortedField === f)
        return { text: `${driver.sortedValue ?? 'd.v'} ${dir}, d.n ${dir}`, params: [] };
      const expression = stored(driver.n);
      return {
        text: `${expression.text} COLLATE NOCASE ${dir}, ${driver.n} ${dir}`,
        params: expression.params,
      };
    },
    key: stored,
    after: (driver, position) =>
      driver.sortedField === f
        ? seek({ text: driver.sortedValue ?? 'd.v', params: [] }, 'd.n', position, false)
        : seek(stored(driver.n), driver.n, position, true),
  };
}
