/**
 * The document store port: one instance per tenant (tenants are isolated by construction).
 * Adapters: `@odp/store-sqlite` (embedded default); others run the same contract suite.
 *
 * Every read takes an {@link AccessFilter} and applies it inside the engine's query, never after
 * fetching. Every write is one atomic {@link WriteBatch}.
 */
import type { AccessFilter } from './account.js';
import type { Model } from './model.js';
import type { AggregatePlan, DistinctPlan, ListPlan, Selection } from './query.js';

/** An object as stored. Field values are in stored form; links hold only the forward side. */
export interface StoredObject {
  readonly id: string;
  /** Qualified name of the BASIC class. */
  readonly basicClass: string;
  /** Every class: BASIC, ancestors, gained classes and their ancestors (qualified names). */
  readonly classes: readonly string[];
  /** Display name from the class's name formula; used by relation filters and sorts. */
  readonly name: string | null;
  /** Field values by field name; only fields with a value are present. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Forward links: relation storage key -> ids of the linked objects, in order. */
  readonly links: Readonly<Record<string, readonly string[]>>;
  readonly createdAt: string;
  readonly modifiedAt: string;
}

/** A record-level access-control row carried by an object. */
export interface AclRow {
  readonly acId: string;
  readonly nodeId: string;
  readonly definition: string;
}

/** A data-change event, as appended in the same transaction as the change it reports. */
export interface ChangeEvent {
  /** Monotonically increasing per tenant; assigned by the store. */
  readonly seq: number;
  readonly type: 'create' | 'update' | 'delete' | 'merge';
  readonly objectId: string;
  /** Qualified classes of the object at the time of the change. */
  readonly classes: readonly string[];
  /** For merges: the id of the object merged away. */
  readonly loserId?: string;
  readonly at: string;
}

export type NewChangeEvent = Omit<ChangeEvent, 'seq'>;

/**
 * A holder's claim on an anchored grant: the holder object (ordinarily a person) reached from the
 * anchor along `grantToUsers`, with the step ids walked, so the audit can name orphaned steps.
 */
export interface Holding {
  readonly holderId: string;
  readonly acId: string;
  readonly definition: string;
  readonly anchorId: string;
  readonly stepIds: readonly string[];
}

export interface WriteBatch {
  /** Objects to insert or replace whole (links included). */
  readonly put?: readonly StoredObject[];
  readonly delete?: readonly string[];
  /** Replaces the ACL rows of each listed object. */
  readonly aclRows?: readonly { readonly objectId: string; readonly rows: readonly AclRow[] }[];
  /** Replaces the holdings of each listed (anchor, definition) pair. */
  readonly holdings?: readonly {
    readonly anchorId: string;
    readonly definition: string;
    readonly rows: readonly Holding[];
  }[];
  /** Merge redirects: a GET of `from` answers with `to`. */
  readonly redirects?: readonly { readonly from: string; readonly to: string }[];
  readonly events?: readonly NewChangeEvent[];
}

export interface DistinctBucket {
  /** Field value; for relations the linked object's id, or null for objects lacking the relation. */
  readonly value: unknown;
  /** For relation buckets: the linked object's name and basic class. */
  readonly name?: string | null;
  readonly basicClass?: string;
  readonly count: number;
}

export interface AggregateResult {
  readonly total: number;
  readonly sum: Readonly<Record<string, number>>;
  /** Fields with no values are absent. */
  readonly avg: Readonly<Record<string, number>>;
  readonly count: Readonly<Record<string, number>>;
}

export interface StoreCapabilities {
  readonly transactions: boolean;
  readonly fullTextIndex: boolean;
}

export interface TenantStore {
  readonly capabilities: StoreCapabilities;

  /** Prepares the engine for a model (indexes on indexed fields, unique constraints). Idempotent. */
  applyModel(model: Model): Promise<void>;

  /** The object, or null when it does not exist or the access filter hides it. */
  get(id: string, access: AccessFilter): Promise<StoredObject | null>;
  /** The visible objects among `ids`, in no particular order. */
  getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]>;
  /** One page of the selection plus at most one extra row (so `size + 1` rows at most). */
  list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]>;
  distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]>;
  /** `{value, objectId}` for every visible object of the selection that has a value. */
  values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]>;
  aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult>;
  /** Objects that link to `id`, with the relation key, regardless of access (for write rules). */
  linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]>;

  /**
   * Applies the batch atomically: either all of it is durable when the promise resolves, or none.
   * Throws ConflictError when a `unique` field value would be shared.
   */
  write(batch: WriteBatch): Promise<void>;

  /** The survivor a merged-away id redirects to (chains resolved), or null. */
  redirectOf(id: string): Promise<string | null>;
  aclRowsOf(id: string): Promise<AclRow[]>;
  /** Holdings whose holder is `holderId`. */
  holdingsOf(holderId: string): Promise<Holding[]>;
  /** Holdings of one acId (who holds an anchored grant). */
  holdingsOfAcId(acId: string): Promise<Holding[]>;
  /** Distinct node ids in stored ACL rows and step ids in stored holdings (for orphan reports). */
  storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }>;
  /** Every object, in id order, `limit` at a time after `afterId` (rebuilds, recalculation). */
  scan(afterId: string | null, limit: number): Promise<StoredObject[]>;
  /** Events with `seq` greater than `afterSeq`, oldest first. */
  eventsAfter(afterSeq: number, limit: number): Promise<ChangeEvent[]>;

  close(): Promise<void>;
}
