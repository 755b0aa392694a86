/**
 * Compiles the backend-neutral plans of `@odp/core` (selection, filters, sort, access filter) to
 * SQL over the tenant schema (see schema.ts and docs/storage.md).
 *
 * Every condition is an SQL predicate on one object key `n`. A query walks one *driver* (an index
 * range that yields candidate keys) and checks the remaining conditions per key with indexed
 * probes. The driver is chosen per query: the smallest selective filter range (measured with a
 * bounded count), else the sort field's index range (already in sort order), else the class's
 * membership rows (in creation order). The access filter is always one of the conditions, so
 * paging, distinct values and aggregates all see exactly the visible set.
 */
import { derivedSources } from '@odp/core';
import type {
  AccessFilter,
  FieldDef,
  Filter,
  ListPosition,
  Model,
  RelationRef,
  Selection,
  Sort,
  SourcePath,
} from '@odp/core';
import { FOLD_FUNCTION, indexKey, indexedField, ixKey } from './index-keys.js';
import type { IndexKey } from './index-keys.js';

export interface Sql {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** A predicate on the object key expression `n`. */
export type Condition = (n: string) => Sql;

/** An index range that can drive a query, and the conditions it makes redundant. */
export interface Driver {
  readonly from: string;
  readonly where: Sql;
  /** The object key expression of a driver row. */
  readonly n: string;
  /** Indexes into the selection's conditions that every driver row satisfies. */
  readonly covers: readonly number[];
  /** Whether rows come out in ascending `n` (creation) order. */
  readonly orderedByN: boolean;
  /** The field key whose value order (then `n`) the rows come out in, for ranges of the value index. */
  readonly sortedField?: number;
}

export interface CompiledSelection {
  readonly conditions: readonly Condition[];
  /** The class membership driver (always usable; covers condition 0). */
  readonly classDriver: Driver;
  /** Drivers from filters and the related anchor, to be measured. */
  readonly candidates: readonly Driver[];
  /** False when the selection is empty by construction (unknown class, anchor or relation). */
  readonly satisfiable: boolean;
}

/** What the compiler needs to know about the database: interned keys and object keys. */
export interface KeyLookup {
  /** The interned key of a name (`c:`/`f:`/`r:` prefixed), or null when it was never stored. */
  key(name: string): number | null;
  /** The internal key of an object id, or null when no such object is stored. */
  objectKey(id: string): number | null;
}

const FALSE: Condition = () => ({ text: '0', params: [] });
/**
 * The index key of an empty field: -Infinity, below every number and string, so empty values sort
 * first ascending (last descending). Primary-key columns of a WITHOUT ROWID table cannot be NULL.
 */
export const EMPTY_KEY = '-9e999';
/** The greatest code point: `prefix <= v < prefix + MAX_CHAR` is the prefix range of `prefix`. */
const MAX_CHAR = '\u{10FFFF}';

/**
 * An object name (`objects.name`, shown as it was written) as text compares: like an `ix` key
 * (`ixKey`), ASCII names as they are, others through `odp_fold`, with NOCASE. The length test
 * (characters against bytes) keeps the function call off ASCII names.
 */
function comparableName(column: string): string {
  return `(CASE WHEN length(${column}) = length(CAST(${column} AS BLOB)) THEN ${column} ELSE ${FOLD_FUNCTION}(${column}) END) COLLATE NOCASE`;
}

export function compileSelection(
  model: Model,
  keys: KeyLookup,
  selection: Selection,
  access: AccessFilter,
): CompiledSelection {
  const classKey = keys.key(`c:${selection.className}`);
  const conditions: Condition[] = [];
  const candidates: Driver[] = [];
  let satisfiable = classKey !== null;
  const c = classKey ?? -1;

  conditions.push((n) => ({
    text: `EXISTS (SELECT 1 FROM cls m WHERE m.c = ? AND m.n = ${n})`,
    params: [c],
  }));
  const classDriver: Driver = {
    from: 'cls d',
    where: { text: 'd.c = ?', params: [c] },
    n: 'd.n',
    covers: [0],
    orderedByN: true,
  };

  if (selection.related !== undefined) {
    const anchor = keys.objectKey(selection.related.anchorId);
    const rel = keys.key(`r:${selection.related.relation.key}`);
    if (anchor === null || rel === null) satisfiable = false;
    const fromAnchor = linkSide(selection.related.relation);
    conditions.push((n) => ({
      text: `EXISTS (SELECT 1 FROM links r WHERE r.${fromAnchor.anchor} = ? AND r.rel = ? AND r.${fromAnchor.other} = ${n})`,
      params: [anchor, rel],
    }));
    candidates.push({
      from: 'links d',
      where: { text: `d.${fromAnchor.anchor} = ? AND d.rel = ?`, params: [anchor, rel] },
      n: `d.${fromAnchor.other}`,
      covers: [conditions.length - 1],
      orderedByN: fromAnchor.anchor === 'dst',
    });
  }

  for (const filter of selection.filters) {
    const compiled = compileFilter(model, keys, selection.className, c, filter, access);
    if (compiled === null) continue;
    // A derived value the reader may not see counts as empty (see hiddenSource).
    const hidden =
      'field' in filter ? hiddenSource(model, keys, selection.className, filter.field, access) : null;
    if (hidden !== null && filter.kind === 'empty') {
      // No index driver: its range holds only the truly empty values.
      conditions.push((n) => joined(compiled.condition(n), 'OR', hidden(n)));
      continue;
    }
    conditions.push(compiled.condition);
    if (compiled.driver !== undefined) {
      const covers = compiled.driver.coversClass ? [0, conditions.length - 1] : [conditions.length - 1];
      candidates.push({ ...compiled.driver, covers });
    }
    // Checked on every row, whatever drives the query.
    if (hidden !== null) conditions.push((n) => negated(hidden(n)));
  }

  const accessCondition = compileAccess(keys, access);
  if (accessCondition !== null) {
    conditions.push(accessCondition);
    const held = heldGrantsDriver(model, selection.className, c, access, conditions.length - 1);
    if (held !== undefined) candidates.push(held);
  }
  return { conditions, classDriver, candidates, satisfiable };
}

/**
 * The objects of the class carrying one of the held acIds, read from `acl_cls (ac, c, n)` (one
 * range per held acId, holding only members of the class): a candidate driver when the class is
 * protected (itself or an ancestor), since every visible member then carries a held acId. Measured
 * like the other candidates (a bounded count of its rows), it drives only when the grants are
 * selective for this class. An object carrying several held acIds yields one row: the smallest
 * (a walk of that object's rows of `acl_cls (n, c, ac)`, each tested against the held set: see
 * {@link compileAccess}).
 */
function heldGrantsDriver(
  model: Model,
  className: string,
  c: number,
  access: AccessFilter,
  accessIndex: number,
): Driver | undefined {
  if (access.kind !== 'acl' || access.acIds.length === 0) return undefined;
  const lineage = [className, ...(model.classes.get(className)?.ancestors ?? [])];
  if (!lineage.some((name) => access.protectedClasses.includes(name))) return undefined;
  const acIds = JSON.stringify(access.acIds);
  return {
    from: 'acl_cls d',
    where: {
      text:
        'd.ac IN (SELECT value FROM json_each(?)) AND d.c = ? ' +
        'AND NOT EXISTS (SELECT 1 FROM acl_cls e WHERE e.n = d.n AND e.c = d.c AND e.ac < d.ac ' +
        'AND +e.ac IN (SELECT value FROM json_each(?)))',
      params: [acIds, c, acIds],
    },
    n: 'd.n',
    covers: [0, accessIndex],
    orderedByN: false,
  };
}

interface CompiledFilter {
  readonly condition: Condition;
  readonly driver?: Omit<Driver, 'covers'> & { readonly coversClass: boolean };
}

function joined(left: Sql, operator: 'AND' | 'OR', right: Sql): Sql {
  return { text: `(${left.text} ${operator} ${right.text})`, params: [...left.params, ...right.params] };
}

function negated(condition: Sql): Sql {
  return { text: `NOT ${condition.text}`, params: condition.params };
}

/**
 * The condition "the value of derived field `field` on the object was computed from an object the
 * access filter hides" (some object along one of its source paths is not visible), or null when no
 * value of it can be hidden: the field is not derived, or the account reads everything.
 */
export function hiddenSource(
  model: Model,
  keys: KeyLookup,
  className: string,
  field: string,
  access: AccessFilter,
): Condition | null {
  const paths = derivedSources(model, className).get(field);
  return paths === undefined ? null : hiddenAlongAny(keys, paths, access);
}

/** {@link hiddenSource} for given source paths. */
export function hiddenAlongAny(
  keys: KeyLookup,
  paths: readonly SourcePath[],
  access: AccessFilter,
): Condition | null {
  const visible = compileAccess(keys, access);
  if (visible === null) return null;
  return (n) => {
    const parts = paths
      .map((path) => hiddenAlong(keys, path, visible, n, 0))
      .filter((part): part is Sql => part !== null);
    return parts.length === 0
      ? { text: '0', params: [] }
      : {
          text: `(${parts.map((part) => part.text).join(' OR ')})`,
          params: parts.flatMap((part) => part.params),
        };
  };
}

/**
 * Whether, walking `path` from `n`, some object reached is not visible. A relation never linked
 * (no interned key) reaches nothing: null.
 */
function hiddenAlong(
  keys: KeyLookup,
  path: SourcePath,
  visible: Condition,
  n: string,
  depth: number,
): Sql | null {
  const [end, ...rest] = path;
  if (end === undefined) return null;
  const rel = keys.key(`r:${end.relation.key}`);
  if (rel === null) return null;
  const side = linkSide({ key: end.relation.key, direction: end.direction });
  const link = `hs${depth}`;
  const reached = `${link}.${side.other}`;
  const shown = visible(reached);
  const deeper = rest.length > 0 ? hiddenAlong(keys, rest, visible, reached, depth + 1) : null;
  return {
    text:
      `EXISTS (SELECT 1 FROM links ${link} WHERE ${link}.${side.anchor} = ${n} AND ${link}.rel = ? ` +
      `AND (NOT ${shown.text}${deeper === null ? '' : ` OR ${deeper.text}`}))`,
    params: [rel, ...shown.params, ...(deeper?.params ?? [])],
  };
}

/**
 * One filter as a condition. Filters on a field the class does not index are ignored (interface
 * rule 2: unknown and non-indexed fields are not filters); an operand that no value of the field's
 * type can equal matches nothing.
 */
function compileFilter(
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

/** Column names of a link row seen from one end of a relation. */
interface LinkSide {
  /** The column holding the object the relation is seen from. */
  readonly anchor: 'src' | 'dst';
  /** The column holding the objects on the other end. */
  readonly other: 'src' | 'dst';
}

/**
 * The link columns of a relation seen from one object (a filtered object, or a related list's
 * anchor): along a forward side that object is the link's source, along an inverse side its target.
 */
function linkSide(relation: RelationRef): LinkSide {
  return relation.direction === 'forward' ? { anchor: 'src', other: 'dst' } : { anchor: 'dst', other: 'src' };
}

/**
 * The access filter on the object at the other end of a link: relation filters, relation sorts and
 * relation buckets treat a link to an object the account cannot read as absent, so they never
 * reveal an unreadable object (its id, its name or its existence).
 */
export function visibleLinked(keys: KeyLookup, access: AccessFilter, n: string): Sql {
  return compileAccess(keys, access)?.(n) ?? { text: '1', params: [] };
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

/**
 * The access filter as a condition: visible when no class of the object is protected, or when the
 * object carries an ACL row with one of the held acIds. Sets are passed as JSON arrays.
 *
 * `+a.ac` keeps the held acIds off the index: SQLite then walks the object's few ACL rows and tests
 * each against the held set, instead of one index seek per held acId for every object checked (an
 * account holding 150 acIds paid 150 seeks per row; a page walked in sort order checks hundreds).
 */
export function compileAccess(keys: KeyLookup, access: AccessFilter): Condition | null {
  if (access.kind === 'all') return null;
  const protectedKeys = access.protectedClasses
    .map((name) => keys.key(`c:${name}`))
    .filter((key): key is number => key !== null);
  if (protectedKeys.length === 0) return null;
  const unprotected = (n: string): string =>
    `NOT EXISTS (SELECT 1 FROM cls p WHERE p.n = ${n} AND p.c IN (SELECT value FROM json_each(?)))`;
  if (access.acIds.length === 0) {
    return (n) => ({ text: unprotected(n), params: [JSON.stringify(protectedKeys)] });
  }
  return (n) => ({
    text:
      `(${unprotected(n)} OR EXISTS (SELECT 1 FROM acl a WHERE a.n = ${n} ` +
      `AND +a.ac IN (SELECT value FROM json_each(?))))`,
    params: [JSON.stringify(protectedKeys), JSON.stringify(access.acIds)],
  });
}

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

export function compileSort(
  model: Model,
  keys: KeyLookup,
  className: string,
  sort: Sort | undefined,
  access: AccessFilter,
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
  const stored = (n: string): Sql => ({
    text: `(SELECT ${field.multiple ? `${pick}(s.v)` : 's.v'} FROM ix s WHERE s.n = ${n} AND s.f = ? AND s.c = ?)`,
    params: [f, c],
  });
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
      if (driver.sortedField === f) return { text: `d.v ${dir}, d.n ${dir}`, params: [] };
      const expression = stored(driver.n);
      return {
        text: `${expression.text} COLLATE NOCASE ${dir}, ${driver.n} ${dir}`,
        params: expression.params,
      };
    },
    key: stored,
    after: (driver, position) =>
      driver.sortedField === f
        ? seek({ text: 'd.v', params: [] }, 'd.n', position, false)
        : seek(stored(driver.n), driver.n, position, true),
  };
}

/** `WHERE` of a query over `driver`: its own range plus every condition it does not cover. */
export function whereClause(selection: CompiledSelection, driver: Driver): Sql {
  const parts: Sql[] = [driver.where];
  selection.conditions.forEach((condition, index) => {
    if (!driver.covers.includes(index)) parts.push(condition(driver.n));
  });
  return { text: parts.map((part) => part.text).join(' AND '), params: parts.flatMap((part) => part.params) };
}
