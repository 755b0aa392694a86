/**
 * The document store port: one instance per tenant (tenants are isolated by construction).
 * Adapters: `@odp/store-sqlite` (embedded default); others run the same contract suite.
 *
 * Every read takes an {@link AccessFilter} and applies it inside the engine's query, never after
 * fetching. Every write is one atomic {@link WriteBatch}.
 */
import type { AccessFilter } from './account.js';
import type { EventLog, NewChangeEvent } from './events.js';
import type { IdempotencyRecord, TenantIdempotency } from './idempotency.js';
import type { NewJob } from './jobs.js';
import type { Model } from './model.js';
import type { AggregatePlan, DistinctPlan, ListPlan, ListPosition, Selection } from './query.js';

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

/** What a link to an object shows (`{href, name}`): its id, BASIC class and name, without its values. */
export interface ObjectRef {
  readonly id: string;
  readonly basicClass: string;
  readonly name: string | null;
}

/** A link to `targetId`, with the linking object's ref and the relation storage key. */
export interface IncomingRef extends ObjectRef {
  readonly targetId: string;
  readonly relationKey: string;
}

/**
 * Which links `TenantDocuments.incomingRefs` reads: only those through `relationKeys`, and at most
 * `limit` of them per target and relation (the first in `linksTo` order), so the cost of reading
 * the linkers of an object is bounded whatever the number of objects linking to it.
 */
export interface IncomingBound {
  readonly relationKeys: readonly string[];
  readonly limit: number;
}

/** A record-level access-control row carried by an object. */
export interface AclRow {
  readonly acId: string;
  readonly nodeId: string;
  readonly definition: string;
}

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

/**
 * A write's precondition on one object: it must still carry `modifiedAt` (the value its writer read),
 * or not exist when `modifiedAt` is null. Writers keep `modifiedAt` strictly increasing per object,
 * so the value identifies the version read.
 */
export interface WriteExpectation {
  readonly id: string;
  readonly modifiedAt: string | null;
}

export interface WriteBatch {
  /**
   * Checked first, atomically with the rest of the batch: when any object no longer is as expected,
   * nothing is applied and `write` throws WriteConflictError (the writer re-reads and retries).
   */
  readonly expect?: readonly WriteExpectation[];
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
  /** Appended to the tenant's {@link EventLog} (`events`), in order, atomically with the rest. */
  readonly events?: readonly NewChangeEvent[];
  /**
   * Background jobs the write triggers (script gateway calls), kept in the tenant's outbox in the
   * same transaction: a committed write never loses them and a refused one never queues them. A
   * relay moves them into the JobQueue (`outbox`, `removeFromOutbox`).
   */
  readonly jobs?: readonly NewJob[];
  /**
   * The idempotency record of the keyed request this batch writes (port in idempotency.ts), stored
   * before anything else of the batch and atomically with it. When an unexpired record of the same
   * account and key exists, nothing is applied and `write` throws IdempotencyKeyTakenError; an
   * expired one is replaced.
   */
  readonly idempotency?: IdempotencyRecord;
}

/** A write applied by `TenantDocuments.applyWrite`, whose commit may still be pending. */
export interface AppliedWrite {
  /** Settles when the write is durable (resolves) or its commit failed (rejects, nothing kept). */
  readonly committed: Promise<void>;
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

/** A list page (`TenantDocuments.page`): its rows and, in step with them, each row's position. */
export interface ListPage {
  readonly rows: readonly StoredObject[];
  /** `positions[i]` is the position of `rows[i]`: a plan with `after: positions[i]` starts at row i + 1. */
  readonly positions: readonly ListPosition[];
}

/**
 * The objects of one tenant: reads under an {@link AccessFilter}, the atomic {@link WriteBatch}
 * (which also carries the batch's ACL rows, holdings, events and jobs) and the unfiltered reads
 * that write rules and rebuilds need.
 */
export interface TenantDocuments {
  /** The object, or null when it does not exist or the access filter hides it. */
  get(id: string, access: AccessFilter): Promise<StoredObject | null>;
  /** The visible objects among `ids`, in no particular order. */
  getMany(ids: readonly string[], access: AccessFilter): Promise<StoredObject[]>;
  /**
   * One page of the selection plus at most one extra row (so `size + 1` rows at most).
   *
   * - Lists include subclasses and gained classes (the object's `classes`).
   * - Filters and sorts on a field that is not an indexed field of `className` are ignored; an
   *   operand that no value of the field's type can equal matches nothing. Multi-valued fields match
   *   when any value matches. DATETIME compares instants; numbers compare numerically.
   * - Text compares case-insensitively in filters, sorts and `unique` checks, with Unicode case
   *   folding (`foldCase`: É/é, Ω/ω, ß as "ss"; accents still count). A distinct bucket of text
   *   shows one of the case variants it counts, as written.
   * - Order: by the sort key, objects without a value first ascending (last descending), ties by
   *   creation order in the sort's direction; without a sort, creation order. Relation-name keys
   *   use the linked objects' current names (the smallest one ascending, largest descending).
   * - Relation filters, relation sorts and relation buckets (`distinct`) treat a link to an object
   *   that `access` hides as absent, so they never reveal an unreadable object.
   * - `after` (keyset paging) starts the page right after that position in this order, through a
   *   seek on the order's index where the sort has one (a sort on a single-valued field, or none),
   *   never by counting the rows before it.
   */
  list(plan: ListPlan, access: AccessFilter): Promise<StoredObject[]>;
  /** The rows of `list` with their positions, from which the cursor of the following page is made. */
  page(plan: ListPlan, access: AccessFilter): Promise<ListPage>;
  /**
   * Value buckets (objects without a value are not counted) or relation buckets (with a `null`
   * bucket for objects lacking the relation, when there are any). Order `value`: by value, relation
   * buckets by name, the null bucket last; `count`/`countDesc`: by count, then as `value`.
   */
  distinct(plan: DistinctPlan, access: AccessFilter): Promise<DistinctBucket[]>;
  /**
   * `{value, objectId}` for every visible object of the selection that has a value, in creation
   * order; `value` is the stored value (an array for multi-valued fields).
   */
  values(
    selection: Selection,
    field: string,
    access: AccessFilter,
  ): Promise<{ value: unknown; objectId: string; basicClass: string }[]>;
  /**
   * `total` of the selection; `sum`, `avg`, `count` of the listed numeric fields of `className`
   * (other names are left out). `count` counts objects with a value, `sum` of no values is 0 and
   * `avg` of no values is absent.
   */
  aggregate(plan: AggregatePlan, access: AccessFilter): Promise<AggregateResult>;
  /** Objects that link to `id`, with the relation key, regardless of access (for write rules). */
  linksTo(id: string): Promise<{ sourceId: string; relationKey: string }[]>;
  /**
   * The refs of the objects among `ids` that `access` lets through, in no particular order. Reads
   * no values and no links, so rendering the links of a page costs one query, not one hydration
   * per linked object.
   */
  refsOf(ids: readonly string[], access: AccessFilter): Promise<ObjectRef[]>;
  /**
   * The links to any of `ids` from objects that `access` lets through, one per link, with the
   * linking object's ref; the links to one target through one relation come in the order `linksTo`
   * gives them. With `bound`, only the links it names (see IncomingBound).
   */
  incomingRefs(ids: readonly string[], access: AccessFilter, bound?: IncomingBound): Promise<IncomingRef[]>;
  /**
   * Per object among `ids`: its derived fields (see `derivedSources`) whose value was computed
   * from an object `access` hides, i.e. some object along one of the field's source paths is not
   * visible. Objects with none are absent. Lists, distinct, values, aggregations and filters apply
   * the same rule inside their queries (such a value counts as empty).
   */
  hiddenDerivedFields(
    ids: readonly string[],
    access: AccessFilter,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>>;

  /**
   * Applies the batch atomically: either all of it is durable when the promise resolves, or none.
   * Puts come first (objects of one batch may link to each other), then redirects (an id already
   * redirected to a `from` now leads to its `to`, so chains follow merges), then deletes, ACL rows,
   * holdings and events. Deleting an object also removes the links pointing to it (no link ever
   * dangles), its ACL rows and the redirects leading to it. ACL rows of an object that does not
   * exist after the batch are ignored.
   * Throws WriteConflictError when an expectation fails (before anything is applied), ConflictError
   * when a `unique` field value would be shared within the declaring class (subclasses included),
   * NotFoundError when a link names an object that does not exist.
   */
  write(batch: WriteBatch): Promise<void>;

  /**
   * Applies the batch as `write` does, with the same checks and errors, and resolves as soon as it
   * is applied: reads of this store see it from then on. `committed` resolves once it is durable,
   * or rejects when its commit failed, in which case nothing of it is kept. An engine may commit
   * the writes applied in one turn of the event loop together (group commit): a caller that
   * derives each write from the state the previous one left starts on the next one without
   * waiting for a commit. Acknowledge a write only after `committed`.
   */
  applyWrite(batch: WriteBatch): Promise<AppliedWrite>;

  /**
   * Runs `derive`, a derivation that reads this store and ends with `applyWrite`, in the store's
   * next write turn: the derivations of one turn run one after another, each reading the writes
   * applied before it, and commit together as soon as the last one is applied, so the engine's
   * write lock is held for their work alone. Resolves what `derive` resolves. Absent where an
   * engine has no such turns: the caller then runs its derivations one at a time itself.
   */
  inWriteTurn?<T>(derive: () => Promise<T>): Promise<T>;

  /** The survivor a merged-away id redirects to (chains resolved), or null. */
  redirectOf(id: string): Promise<string | null>;
  /** Every object, in id order, `limit` at a time after `afterId` (rebuilds, recalculation). */
  scan(afterId: string | null, limit: number): Promise<StoredObject[]>;
}

/**
 * The record-level access-control rows of one tenant as stored (written by `TenantDocuments.write`
 * with the batch that changes them): what access control derives from and audits.
 */
export interface TenantAccessRows {
  aclRowsOf(id: string): Promise<AclRow[]>;
  /** Holdings whose holder is `holderId`. */
  holdingsOf(holderId: string): Promise<Holding[]>;
  /** Holdings of one acId (who holds an anchored grant). */
  holdingsOfAcId(acId: string): Promise<Holding[]>;
  /**
   * A value that changes whenever another process (another api process on the same files) has
   * committed a write since, so that a cache of holdings can tell it may be stale. Absent where the
   * store cannot tell: such a cache sees only the writes of its own process.
   */
  commitsElsewhere?(): number;
  /** Distinct node ids in stored ACL rows and step ids in stored holdings (for orphan reports). */
  storedAclIds(): Promise<{ nodeIds: string[]; stepIds: string[] }>;
}

/** The jobs that writes queued (`WriteBatch.jobs`), waiting to be relayed into the JobQueue. */
export interface TenantOutbox {
  /** Up to `limit` jobs of the outbox (written by `write`), oldest first. */
  outbox(limit: number): Promise<NewJob[]>;
  /** Removes relayed jobs from the outbox; ids not in it are ignored. */
  removeFromOutbox(ids: readonly string[]): Promise<void>;
}

/** The change events of one tenant (`WriteBatch.events`). */
export interface TenantEvents {
  /** The tenant's change events, as `write` appends them (port in events.ts). */
  readonly events: EventLog;
}

/** Preparing a tenant's store for a model, and releasing it. */
export interface TenantStoreLifecycle {
  /**
   * Prepares the engine for a model (indexes on indexed fields, unique constraints). Idempotent.
   * Must be called before `list`, `distinct`, `values`, `aggregate` and `write`. When the model
   * changes what is indexed or searchable, the derived data of stored objects is rebuilt, so objects
   * stored earlier are found by the new fields at once.
   */
  applyModel(model: Model): Promise<void>;

  close(): Promise<void>;
}

/**
 * One tenant's store, composed of its sub-ports; callers depend on the sub-port they use. Every
 * adapter implements the whole port, so the port has no capability flags: what differs between
 * engines is decided inside the adapter (MongoDB detects transactions itself) or told by the
 * SearchIndex (`maintainedByStore`, which the tenant rebuild reads).
 */
export interface TenantStore
  extends
    TenantDocuments,
    TenantAccessRows,
    TenantOutbox,
    TenantEvents,
    TenantIdempotency,
    TenantStoreLifecycle {}
