/**
 * Backend-neutral query plans, produced by `@odp/query-engine` from HTTP query parameters and
 * compiled by each store adapter to its engine. Class and relation names here are resolved
 * (qualified class names, relation storage keys); adapters never consult HTTP parameters.
 */
import type { IndexKey } from './index-keys.js';
import type { DataType } from './model.js';

/** A relation side as used by a filter, sort or related list. */
export interface RelationRef {
  /** Storage key of the declared relation (`<declaredOn>#<name>`). */
  readonly key: string;
  /** `forward`: the object links to others; `inverse`: others link to the object. */
  readonly direction: 'forward' | 'inverse';
}

export type ValueOperand = string | number | boolean;

export type Filter =
  | { readonly kind: 'equals'; readonly field: string; readonly type: DataType; readonly value: ValueOperand }
  | {
      readonly kind: 'range';
      readonly field: string;
      readonly type: DataType;
      readonly from?: ValueOperand;
      readonly to?: ValueOperand;
    }
  | { readonly kind: 'startsWith'; readonly field: string; readonly type: DataType; readonly value: string }
  | { readonly kind: 'notEmpty'; readonly field: string; readonly type: DataType }
  | { readonly kind: 'empty'; readonly field: string; readonly type: DataType }
  /** Some linked object's name equals (or starts with) the value. */
  | {
      readonly kind: 'relationName';
      readonly relation: RelationRef;
      readonly match: 'equals' | 'startsWith';
      readonly value: string;
    }
  /** Some linked object has this id. */
  | { readonly kind: 'relationId'; readonly relation: RelationRef; readonly id: string }
  /** The object has every one of these classes (qualified names). */
  | { readonly kind: 'hasClasses'; readonly classes: readonly string[] };

export type SortKey =
  | { readonly kind: 'field'; readonly field: string; readonly type: DataType }
  | { readonly kind: 'relationName'; readonly relation: RelationRef };

export interface Sort {
  readonly key: SortKey;
  readonly direction: 'asc' | 'desc';
}

/** The set of objects a list, distinct, values or aggregations request works on. */
export interface Selection {
  /** Objects must have this class (qualified); subclasses and gained classes included. */
  readonly className: string;
  /** Related lists: only objects linked with `anchorId` through `relation`, seen from the anchor. */
  readonly related?: { readonly anchorId: string; readonly relation: RelationRef };
  readonly filters: readonly Filter[];
}

export interface ListPlan extends Selection {
  /** Absent: a stable default order (creation order, then id). Ties always break by id. */
  readonly sort?: Sort;
  readonly page: number;
  readonly size: number;
  /**
   * The position of the page's first row; absent: `page * size`. Set by `_offset`, which the `next`
   * link of a page shortened by its byte budget carries (docs/data-api.md).
   */
  readonly offset?: number;
  /**
   * Keyset paging: the page starts right after this row position (the position of the previous
   * page's last row, see `TenantStore.page`), so rows inserted or deleted meanwhile never shift it.
   * Overrides `page` and `offset`.
   */
  readonly after?: ListPosition;
}

/**
 * A row's place in a list's order (the stated tie order): the sort key the store ordered it by,
 * then its creation sequence. Rows come in (key, seq) order in the sort's direction, a row without
 * a key first ascending (last descending); without a sort, by `seq` alone, ascending.
 */
export interface ListPosition {
  /**
   * The sort key as the store compares it (text may be case-folded; for a relation sort the linked
   * name picked); null when the row has none (or reads it as empty) and when the list has no sort.
   */
  readonly key: IndexKey | null;
  /** The row's creation sequence: store-assigned, unique in the tenant, increasing with creation. */
  readonly seq: number;
}

export type DistinctTarget =
  | { readonly kind: 'field'; readonly field: string; readonly type: DataType }
  | { readonly kind: 'relation'; readonly relation: RelationRef };

export interface DistinctPlan extends Selection {
  readonly target: DistinctTarget;
  readonly order: 'value' | 'count' | 'countDesc';
}

export interface AggregatePlan extends Selection {
  readonly sum: readonly string[];
  readonly avg: readonly string[];
  readonly count: readonly string[];
}
