/**
 * The reads that render links (`{href, name}`): the id, BASIC class and name of objects, and the
 * objects linking to a page of objects, each one query over the `objects` columns alone (no values
 * parsed, no links hydrated), under the caller's access filter.
 */
import type Database from 'better-sqlite3';
import type { AccessFilter, IncomingBound, IncomingRef, ObjectRef } from '@odp/core';
import type { ConnectionChanges } from './database.js';
import { visibleLinked } from './query/access.js';
import { amongValues, limitClause } from './query/sql.js';
import type { KeyLookup, Sql } from './query/sql.js';

export interface TenantNamesContext extends ConnectionChanges {
  readonly keys: KeyLookup;
  /** Prepared-statement cache of the owning store. */
  readonly statement: (sql: string) => Database.Statement;
  /**
   * The tenant's count of writes that changed the reference of a stored object or deleted one
   * (`refsChangedCount` in batch-writer.ts): remembered references hold while it stays the same.
   */
  readonly refsChanged: () => string | null;
}

/** Rows are read raw (arrays): the driver then builds no object per row. */
type RefRow = [id: string, basic: string, name: string | null];
type IncomingLinkRow = [dst: number, rel: number, src: number];

function refOf([id, basicClass, name]: RefRow): ObjectRef {
  return { id, basicClass, name };
}

/** References remembered at most in each memory, the linkers' and the linked objects' (about 200 bytes each). */
const REMEMBERED_REFS = 20_000;
/** Bounded ranges of linkers remembered at most (a page of 20 companies reads 20 of them). */
const REMEMBERED_RANGES = 5_000;
/** Readers (access conditions and bounds) the remembered ranges are kept apart for, at most. */
const REMEMBERED_READERS = 500;

/** Sets `key` in `memory`, forgetting the oldest entry first when it holds {@link REMEMBERED_REFS}. */
function rememberRef<K, V>(memory: Map<K, V>, key: K, value: V): void {
  if (memory.size >= REMEMBERED_REFS) memory.delete(memory.keys().next().value as K);
  memory.set(key, value);
}

export class TenantNames {
  /**
   * Relation storage keys by interned key. A committed dict row never changes or goes away, and
   * these reads run outside write transactions, so what they saw stays true.
   */
  private readonly relationKeys = new Map<number, string>();
  /**
   * The id, BASIC class and name of linking objects by key, as last read: a page of 20 companies
   * renders some 400 invoices linking to them, and reading each one's row cost twice as much as
   * reading the links. They are forgotten whenever a write of any process changed the BASIC class
   * or name of a stored object or deleted one (creates, patches of other values and a search's
   * frozen ranking change no reference, but would change `data_version`).
   */
  private readonly refs = new Map<number, RefRow>();
  private refsVersion: string | null = null;
  /**
   * The keys of the first linkers of (target, relation) pairs read with a bound, by the reader's
   * access condition, the bound, the target and the relation, as long as the database is as it was
   * when they were read: forgotten on every write of this connection and whenever another one
   * committed (`data_version`). A page of companies renders the same ranges on every request while
   * nothing is written; the range reads were the largest single statement of such a page.
   */
  private readonly ranges = new Map<string, readonly number[]>();
  /**
   * A short number for each reader's access condition and bound the ranges were read under (a
   * restricted reader's condition holds its granted access controls, too long to repeat per range).
   */
  private readonly rangeReaders = new Map<string, number>();
  /**
   * The linkers of each target a bounded read rendered, as references, by reader, relations and
   * target id, with the target's key (which orders a page's targets): kept and forgotten with
   * {@link ranges}, so a page rendered again while nothing is written reads nothing and resolves
   * nothing. Kept only from reads outside a write transaction.
   */
  private readonly resolved = new Map<
    string,
    { readonly n: number; readonly refs: readonly IncomingRef[] }
  >();
  /** The references {@link resolved} holds, bounded like {@link refs}. */
  private resolvedRefs = 0;
  /**
   * Relation keys no link was ever stored through (not in `dict`), as long as the database is as
   * it was when they were looked up (forgotten with {@link ranges}): an inverse side nothing links
   * through yet is rendered with every object of its class (an invoice of the example CRM has two),
   * and looking both up again was two of the five statements of a get.
   */
  private readonly unstoredRelations = new Set<string>();
  /**
   * The id, BASIC class and name of the objects that unrestricted readers' objects link to, by id,
   * as long as the database is as it was when they were read (forgotten with {@link ranges}): a get
   * of an invoice renders its client, a page of invoices the same few companies again and again,
   * and their reference was one of the four statements of a get. Kept only from reads outside a
   * write transaction.
   */
  private readonly linkedRefs = new Map<string, ObjectRef>();
  /** The `data_version` {@link ranges}, {@link unstoredRelations} and {@link linkedRefs} were read under. */
  private rememberedVersion: number | null = null;
  /** Whether {@link forgetOnCommitElsewhere} checked in the current synchronous run. */
  private checkedThisRun = false;

  constructor(private readonly context: TenantNamesContext) {
    context.onWrite(() => this.forgetRemembered());
  }

  /**
   * See `TenantStore.refsOf`. For a reader without record-level restriction, the references read
   * are remembered ({@link linkedRefs}) and only the others read.
   */
  refsOf(ids: readonly string[], access: AccessFilter): ObjectRef[] {
    if (ids.length === 0) return [];
    const remember = access.kind === 'all' && !this.context.inTransaction();
    const found: ObjectRef[] = [];
    let missing: readonly string[] = ids;
    if (remember) {
      this.forgetOnCommitElsewhere();
      const unknown: string[] = [];
      for (const id of ids) {
        const ref = this.linkedRefs.get(id);
        if (ref === undefined) unknown.push(id);
        else found.push(ref);
      }
      if (unknown.length === 0) return found;
      missing = unknown;
    }
    const visible = visibleLinked(this.context.keys, access, 'o.n');
    const among = amongValues('o.id', missing);
    const rows = this.context
      .statement(`SELECT o.id, o.basic, o.name FROM objects o WHERE ${among.text} AND ${visible.text}`)
      .raw(true)
      .all(...among.params, ...visible.params) as RefRow[];
    for (const row of rows) {
      const ref = refOf(row);
      found.push(ref);
      if (remember) rememberRef(this.linkedRefs, ref.id, ref);
    }
    return found;
  }

  /**
   * See `TenantStore.incomingRefs`: ordered by target and relation, then as `linksTo` (source,
   * position). The links are read with integer keys only; target ids and relation keys are mapped
   * back from a small lookup and remembered dict entries, which halves the cost of a page whose
   * objects have many linkers, and the linkers' references come from those remembered
   * ({@link linkerRefs}). With a bound, each (target, relation) is one range read of `links_dst`
   * (dst, rel, src, pos) that stops after `limit` visible linkers, all of them in one statement;
   * outside a write, the references read for each target are remembered ({@link resolved}).
   */
  incomingRefs(ids: readonly string[], access: AccessFilter, bound?: IncomingBound): IncomingRef[] {
    if (ids.length === 0) return [];
    // A bounded read names its relations: when none of them has ever been stored, no object links
    // through them, and nothing is read.
    if (bound !== undefined) this.forgetOnCommitElsewhere();
    const rels = bound === undefined ? [] : this.storedRelations(bound.relationKeys);
    if (bound !== undefined && rels.length === 0) return [];
    const visible = visibleLinked(this.context.keys, access, 'l.src');
    const remember = bound !== undefined && !this.context.inTransaction();
    // A range is the reader's whatever else a page asks; a page's linkers are the reader's for
    // the relations it renders.
    const reader = bound === undefined ? '' : `${this.readerKey(visible, bound.limit)}:`;
    const prefix = `${reader}${rels.join(',')}:`;
    if (remember) {
      const known = this.resolvedOf(ids, prefix);
      if (known !== undefined) return known;
    }
    const targets = new Map(
      this.context
        .statement('SELECT n, id FROM objects WHERE id IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(JSON.stringify(ids)) as [number, string][],
    );
    if (targets.size === 0) return [];
    let rows: IncomingLinkRow[];
    if (bound === undefined) {
      rows = this.context
        .statement(
          `SELECT l.dst, l.rel, l.src FROM links l WHERE l.dst IN (SELECT value FROM json_each(?)) AND ${visible.text}
           ORDER BY l.dst, l.rel, l.src, l.pos`,
        )
        .raw(true)
        .all(JSON.stringify([...targets.keys()]), ...visible.params) as IncomingLinkRow[];
    } else {
      rows = this.boundedRanges(
        [...targets.keys()].sort((a, b) => a - b),
        rels,
        visible,
        bound.limit,
        reader,
      );
    }
    const refs = this.linkerRefs(rows.map((row) => row[2]));
    const unknown = [...new Set(rows.map((row) => row[1]))].filter((rel) => !this.relationKeys.has(rel));
    if (unknown.length > 0) {
      const found = this.context
        .statement('SELECT k, substr(name, 3) FROM dict WHERE k IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(JSON.stringify(unknown)) as [number, string][];
      for (const [rel, key] of found) this.relationKeys.set(rel, key);
    }
    const incoming = rows.flatMap(([dst, rel, src]): IncomingRef[] => {
      const ref = refs.get(src);
      if (ref === undefined) return [];
      const [id, basicClass, name] = ref;
      return [
        {
          targetId: targets.get(dst) ?? '',
          relationKey: this.relationKeys.get(rel) ?? '',
          id,
          basicClass,
          name,
        },
      ];
    });
    if (remember) this.rememberResolved(targets, incoming, prefix);
    return incoming;
  }

  /**
   * The linkers of every target among `ids` as remembered ({@link resolved}), targets in key order
   * as a read gives them; undefined unless every one of them is remembered.
   */
  private resolvedOf(ids: readonly string[], prefix: string): IncomingRef[] | undefined {
    const known: { readonly n: number; readonly refs: readonly IncomingRef[] }[] = [];
    for (const id of new Set(ids)) {
      const target = this.resolved.get(`${prefix}${id}`);
      if (target === undefined) return undefined;
      known.push(target);
    }
    return known.sort((a, b) => a.n - b.n).flatMap((target) => target.refs);
  }

  /** Remembers the linkers read for each of `targets` (key -> id) under `prefix`. */
  private rememberResolved(
    targets: ReadonlyMap<number, string>,
    incoming: readonly IncomingRef[],
    prefix: string,
  ): void {
    const byTarget = new Map<string, IncomingRef[]>();
    for (const ref of incoming) {
      const refs = byTarget.get(ref.targetId);
      if (refs === undefined) byTarget.set(ref.targetId, [ref]);
      else refs.push(ref);
    }
    for (const [n, id] of targets) {
      const key = `${prefix}${id}`;
      const refs = byTarget.get(id) ?? [];
      // A page read again for a target it had not read yet reads the others again too.
      this.resolvedRefs += refs.length - (this.resolved.get(key)?.refs.length ?? 0);
      this.resolved.set(key, { n, refs });
    }
  }

  /**
   * A short number for the reader's access condition and bound ({@link rangeReaders}). Forgets
   * every remembered range first when one of the memories is full, so a number handed out stays
   * valid for the rest of the read.
   */
  private readerKey(visible: Sql, limit: number): number {
    if (
      this.ranges.size >= REMEMBERED_RANGES ||
      this.resolved.size >= REMEMBERED_RANGES ||
      this.resolvedRefs >= REMEMBERED_REFS ||
      this.rangeReaders.size >= REMEMBERED_READERS
    ) {
      this.forgetRemembered();
    }
    const reader = `${limit}\u0000${JSON.stringify(visible.params)}\u0000${visible.text}`;
    let readerKey = this.rangeReaders.get(reader);
    if (readerKey === undefined) {
      readerKey = this.rangeReaders.size;
      this.rangeReaders.set(reader, readerKey);
    }
    return readerKey;
  }

  /**
   * The first `limit` visible linkers of each (target, relation) pair, targets and relations in
   * ascending key order: remembered ranges (see {@link ranges}), the others read in one statement,
   * each pair a correlated range read that stops after `limit` visible linkers (a statement per
   * pair paid a statement's fixed cost 20 times for a page of 20 companies).
   */
  private boundedRanges(
    targets: readonly number[],
    rels: readonly number[],
    visible: Sql,
    limit: number,
    /** The reader's {@link readerKey}, as `incomingRefs` keys the ranges. */
    reader: string,
  ): IncomingLinkRow[] {
    // Inside a write transaction the ranges may differ from the committed ones: read, not remembered.
    const ranges = this.context.inTransaction() ? new Map<string, readonly number[]>() : this.ranges;
    const missing = targets.filter((dst) => rels.some((rel) => !ranges.has(`${reader}${dst}:${rel}`)));
    if (missing.length > 0) {
      const pairs = this.context
        .statement(
          `SELECT t.value, r.value, (
             SELECT json_group_array(b.src) FROM (
               SELECT l.src FROM links l
               WHERE l.dst = t.value AND l.rel = r.value AND ${visible.text}
               ORDER BY l.src, l.pos ${limitClause(limit)}) b)
           FROM json_each(?) t, json_each(?) r ORDER BY t.key, r.key`,
        )
        .raw(true)
        .all(...visible.params, JSON.stringify(missing), JSON.stringify(rels)) as [number, number, string][];
      // The range picked the first linkers in (src, pos) order; an aggregate does not promise to
      // keep an order, so the keys are sorted again (equal keys are one linker linking twice).
      for (const [dst, rel, sources] of pairs) {
        ranges.set(
          `${reader}${dst}:${rel}`,
          (JSON.parse(sources) as number[]).sort((a, b) => a - b),
        );
      }
    }
    return targets.flatMap((dst) =>
      rels.flatMap((rel) => {
        const range = ranges.get(`${reader}${dst}:${rel}`) ?? [];
        return range.map((src): IncomingLinkRow => [dst, rel, src]);
      }),
    );
  }

  /**
   * Forgets the ranges, the linkers resolved from them, the relations not stored and the linked
   * references (after a write of this connection, or when full).
   */
  private forgetRemembered(): void {
    this.ranges.clear();
    this.resolved.clear();
    this.resolvedRefs = 0;
    this.rangeReaders.clear();
    this.unstoredRelations.clear();
    this.linkedRefs.clear();
  }

  /**
   * {@link forgetRemembered} when another connection committed since it was read (`data_version`),
   * checked once per synchronous run of the event loop: a render asks for its inverse sides and
   * its links' references one after the other, and a name that changed between the two is as
   * current as one read a moment before the change.
   */
  private forgetOnCommitElsewhere(): void {
    if (this.checkedThisRun) return;
    this.checkedThisRun = true;
    queueMicrotask(() => (this.checkedThisRun = false));
    const version = this.context.dataVersion();
    if (version === this.rememberedVersion) return;
    this.forgetRemembered();
    this.rememberedVersion = version;
  }

  /**
   * The references of the objects `keys`: remembered ones, the others read in one query (and
   * remembered unless a write transaction is open, whose rows may yet roll back).
   */
  private linkerRefs(keys: readonly number[]): ReadonlyMap<number, RefRow> {
    const version = this.context.refsChanged();
    if (version !== this.refsVersion) {
      this.refs.clear();
      this.refsVersion = version;
    }
    const found = new Map<number, RefRow>();
    const missing: number[] = [];
    for (const n of keys) {
      const ref = this.refs.get(n);
      if (ref === undefined) missing.push(n);
      else found.set(n, ref);
    }
    if (missing.length === 0) return found;
    const among = amongValues('n', missing);
    const read = this.context
      .statement(`SELECT n, id, basic, name FROM objects WHERE ${among.text}`)
      .raw(true)
      .all(...among.params) as [number, ...RefRow][];
    const remember = !this.context.inTransaction();
    for (const [n, ...ref] of read) {
      found.set(n, ref);
      if (remember) rememberRef(this.refs, n, ref);
    }
    return found;
  }

  /**
   * The interned keys of the relations `relationKeys` that have been stored, in ascending order. A
   * key found stays valid (a committed dict row never changes); one not found is remembered as not
   * stored until this connection writes or another one commits, either of which may have stored
   * the first link through it.
   */
  private storedRelations(relationKeys: readonly string[]): number[] {
    const rels: number[] = [];
    for (const key of relationKeys) {
      if (this.unstoredRelations.has(key)) continue;
      const rel = this.context.keys.key(`r:${key}`);
      if (rel !== null) {
        rels.push(rel);
        this.relationKeys.set(rel, key);
      } else {
        this.unstoredRelations.add(key);
      }
    }
    return rels.sort((a, b) => a - b);
  }
}
