import { NUMERIC_TYPES, ValidationError } from '@odp/core';
import type {
  AggregatePlan,
  ClassDef,
  DistinctPlan,
  DistinctTarget,
  ListPlan,
  Model,
  RelationRef,
  Selection,
  Sort,
} from '@odp/core';
import { ORDERABLE_TYPES } from './operand.js';
import { LIST_RESERVED, classOf, indexedField, parseFilters, relationRef } from './selection.js';

export const DEFAULT_PAGE_SIZE = 20;
/** Larger `size` values are clamped to this (documented in docs/data-api.md). */
export const MAX_PAGE_SIZE = 1000;
/** Larger `page` values are clamped to this; such a page is simply empty. */
export const MAX_PAGE = 1_000_000;
/** Larger `_offset` values are clamped to this; such a page is simply empty. */
export const MAX_OFFSET = MAX_PAGE * MAX_PAGE_SIZE;

/** For related lists: the anchor object and the relation seen from it. */
export type RelatedScope = NonNullable<Selection['related']>;

/**
 * The plan of a list or related list request (`GET /data/{tenant}/{typeName}`). Bad `page` and
 * `size` values are clamped, never rejected: a non-integer or negative page is 0, a page beyond
 * {@link MAX_PAGE} is {@link MAX_PAGE}; a non-integer size is the default, a size below 1 is 1 and
 * one above {@link MAX_PAGE_SIZE} is the maximum. `_offset` (the row a page starts at, which the
 * `next` link of a shortened page carries) overrides `page` and is clamped like it.
 */
export function parseListQuery(
  model: Model,
  className: string,
  params: URLSearchParams,
  related?: RelatedScope,
): ListPlan {
  const cls = classOf(model, className);
  const sort = parseSort(cls, params.get('sort'));
  return {
    className,
    ...(related ? { related } : {}),
    filters: parseFilters(model, cls, params, LIST_RESERVED),
    ...(sort ? { sort } : {}),
    page: clampInteger(params.get('page'), 0, 0, MAX_PAGE),
    size: pageSizeOf(params),
    ...(params.has('_offset') ? { offset: clampInteger(params.get('_offset'), 0, 0, MAX_OFFSET) } : {}),
  };
}

/** The effective `size` of a list or search request, clamped as {@link parseListQuery} describes. */
export function pageSizeOf(params: URLSearchParams): number {
  return clampInteger(params.get('size'), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
}

/** The filters of a values request; `values` takes the field from the path. */
export function parseSelection(
  model: Model,
  className: string,
  params: URLSearchParams,
  related?: RelatedScope,
): Selection {
  const cls = classOf(model, className);
  return {
    className,
    ...(related ? { related } : {}),
    filters: parseFilters(model, cls, params, LIST_RESERVED),
  };
}

const DISTINCT_RESERVED: ReadonlySet<string> = new Set([...LIST_RESERVED, 'distinct']);

/**
 * The plan of a distinct request. The target (`distinct=`) must be an indexed value field or a
 * relation of the class, else 400; `sort=count`, `count,asc` or `count,desc` (direction in any case)
 * orders by frequency, no `sort` by value; any other `sort` is a ValidationError naming `sort`, as an
 * unparseable list sort is (a silently ignored order would look like a frequency order that failed).
 */
export function parseDistinctQuery(
  model: Model,
  className: string,
  params: URLSearchParams,
  related?: RelatedScope,
): DistinctPlan {
  const cls = classOf(model, className);
  const name = params.get('distinct') ?? '';
  const target = distinctTarget(cls, name);
  if (!target) {
    throw new ValidationError(`distinct must name an indexed field or a relation of ${cls.plural}.`, [
      {
        field: 'distinct',
        message: name === '' ? 'is required' : `${name} is not an indexed field or relation`,
      },
    ]);
  }
  return {
    className,
    ...(related ? { related } : {}),
    filters: parseFilters(model, cls, params, DISTINCT_RESERVED),
    target,
    order: distinctOrder(params.get('sort')),
  };
}

function distinctOrder(raw: string | null): DistinctPlan['order'] {
  if (!raw) return 'value';
  const [name = '', direction = 'asc', ...rest] = raw.split(',').map((part) => part.trim().toLowerCase());
  if (name === 'count' && rest.length === 0 && (direction === 'asc' || direction === 'desc')) {
    return direction === 'asc' ? 'count' : 'countDesc';
  }
  throw new ValidationError('sort of distinct values must be count, optionally followed by ,asc or ,desc.', [
    { field: 'sort', message: 'expected count, count,asc or count,desc' },
  ]);
}

function distinctTarget(cls: ClassDef, name: string): DistinctTarget | undefined {
  const field = indexedField(cls, name);
  if (field)
    return field.type === 'FILE' || field.type === 'IMAGE'
      ? undefined
      : { kind: 'field', field: name, type: field.type };
  const end = cls.relations.get(name);
  return end ? { kind: 'relation', relation: relationRef(end) } : undefined;
}

const AGGREGATE_RESERVED: ReadonlySet<string> = new Set([...LIST_RESERVED, 'sum', 'avg', 'count']);

/**
 * The plan of an aggregations request: `sum`, `avg` and `count` keep only the numeric, visible
 * fields they name (others are silently dropped); filters as for the list; paging and sort unused.
 */
export function parseAggregateQuery(
  model: Model,
  className: string,
  params: URLSearchParams,
  related?: RelatedScope,
): AggregatePlan {
  const cls = classOf(model, className);
  const numeric = (parameter: string): string[] => [
    ...new Set(
      (params.get(parameter) ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => {
          const field = indexedField(cls, name);
          return field !== undefined && NUMERIC_TYPES.has(field.type) && !field.multiple;
        }),
    ),
  ];
  return {
    className,
    ...(related ? { related } : {}),
    filters: parseFilters(model, cls, params, AGGREGATE_RESERVED),
    sum: numeric('sum'),
    avg: numeric('avg'),
    count: numeric('count'),
  };
}

/**
 * `sort=name`, `sort=name,asc` or `sort=name,desc` (direction in any case): an orderable, indexed
 * value field or a single-valued relation (ordered by the related object's name). An unknown or
 * unsortable name keeps the default order, as unknown filter names are ignored; a value of another
 * shape (no name, a `-name`/`+name` sign, which other APIs use for the direction, an unknown
 * direction, more parts) is a ValidationError naming `sort`.
 */
function parseSort(cls: ClassDef, raw: string | null): Sort | undefined {
  if (!raw) return undefined;
  const parts = raw.split(',').map((part) => part.trim());
  const [name = '', direction = 'asc'] = parts;
  const order = direction.toLowerCase();
  const signed = name.startsWith('-') || name.startsWith('+');
  if (name === '' || signed || parts.length > 2 || (order !== 'asc' && order !== 'desc')) {
    throw new ValidationError(
      'sort must be a field or relation name, optionally followed by ,asc or ,desc.',
      [{ field: 'sort', message: 'expected name, name,asc or name,desc' }],
    );
  }
  const field = indexedField(cls, name);
  if (field) {
    return ORDERABLE_TYPES.has(field.type) || field.type === 'BOOLEAN'
      ? { key: { kind: 'field', field: name, type: field.type }, direction: order }
      : undefined;
  }
  const end = cls.relations.get(name);
  if (!end || end.multiple) return undefined;
  const relation: RelationRef = relationRef(end);
  return { key: { kind: 'relationName', relation }, direction: order };
}

function clampInteger(raw: string | null, fallback: number, min: number, max: number): number {
  if (raw === null || !/^-?\d+$/.test(raw.trim())) return fallback;
  const value = Number(raw);
  return Math.min(max, Math.max(min, value));
}
