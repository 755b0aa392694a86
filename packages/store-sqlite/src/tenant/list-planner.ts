/**
 * The list planner of the tenant store: which index range drives a query (the smallest selective
 * filter range, measured with a bounded count, else the sort field's range, else the class's
 * membership rows), the page query and the bounded walk in order of a list plan, and the value
 * rows of one field over a selection (distinct values and aggregates). See docs/storage.md.
 */
import type { AccessFilter, ListPlan } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import type { ClassColumns } from './class-columns.js';
import type { TenantDatabase } from './database.js';
import { hiddenSource } from './query/access.js';
import { compileSelection } from './query/selection.js';
import { compileSort } from './query/sort.js';
import type { CompiledSort } from './query/sort.js';
import { EMPTY_KEY, limitClause, whereClause } from './query/sql.js';
import type { CompiledSelection, Driver, Sql } from './query/sql.js';

/** How long a remembered driver count may serve plans (writes through the store forget it at once). */
const DRIVER_COUNT_TTL_MS = 2000;
/** Remembered driver counts, and walks that ended short, at most (the distinct lists of the moment). */
const MAX_DRIVER_COUNTS = 1000;

export class ListPlanner {
  /**
   * Bounded counts of candidate drivers (see `smallestCandidate`), remembered for a moment. A count
   * only chooses the plan, never the rows, so a stale one costs at most a slower plan; remembering
   * it spares a page asked for again (the same list polled by many clients) from counting up to
   * `driverLimit` index entries every time. Forgotten on every write through this store, and
   * after {@link DRIVER_COUNT_TTL_MS} (writes by other processes).
   */
  private readonly driverCounts = new Map<string, { readonly count: number; readonly at: number }>();

  /**
   * Walks that ended without a whole page (by query text and parameters), remembered for a moment
   * like the driver counts. A walk ends short when the rows ahead in the list's order are ones the
   * selection leaves out (invoices a viewer may not read sorting ahead of the viewer's own): walking
   * them again for the same page would again end short, and then the page query answers anyway.
   * Only the choice of query is remembered, never rows: the page query answers whatever the walk
   * would have, so a stale entry costs at most the walk it spares. Forgotten on every write through
   * this store, and after {@link DRIVER_COUNT_TTL_MS}.
   */
  private readonly shortWalks = new Map<string, number>();

  constructor(
    private readonly database: TenantDatabase,
    private readonly model: AppliedModel,
    private readonly columns: ClassColumns,
    /**
     * A filter whose index range holds fewer rows than this drives a list (its rows are then
     * sorted); otherwise the sort field's index is walked in order.
     */
    readonly driverLimit: number,
  ) {
    database.onForget('write', () => {
      this.driverCounts.clear();
      this.shortWalks.clear();
    });
  }

  /**
   * The object keys of one page (`size + 1` rows at most), in order: the bounded walk in order when
   * the plan has one and it finds the whole page, else the page query. The same walk is not tried
   * again for a moment once it ended short (see {@link shortWalks}).
   */
  listKeys(plan: ListPlan, access: AccessFilter, sort = this.sortOf(plan, access)): number[] {
    const queries = this.listQueries(plan, access, sort);
    if (queries === null) return [];
    const keysOf = (query: Sql) =>
      this.database
        .statement(query.text)
        .pluck()
        .all(...query.params) as number[];
    if (queries.walk !== undefined) {
      const key = `${queries.walk.text}\u0000${JSON.stringify(queries.walk.params)}`;
      const now = Date.now();
      const endedShort = this.shortWalks.get(key);
      if (endedShort === undefined || now - endedShort >= DRIVER_COUNT_TTL_MS) {
        const walked = keysOf(queries.walk);
        if (walked.length === plan.size + 1) {
          this.shortWalks.delete(key);
          return walked;
        }
        if (this.shortWalks.size >= MAX_DRIVER_COUNTS) this.shortWalks.clear();
        this.shortWalks.set(key, now);
      }
    }
    return keysOf(queries.page);
  }

  /**
   * A list plan's page query, and beside it, when a selective filter range drives the page query
   * while an index range yields the rows in the list's order, a *walk* of that ordered range bounded
   * to as many entries as the selective range holds. The page query reads every row of the
   * selective range and sorts them; the walk stops at the page's last row, so it wins when the
   * selection is a large share of the class (2,500 paid invoices of 10,000: some 80 entries walked
   * for a first page instead of 2,500 read and sorted). When the walk ends without a full page, the
   * page query answers, so a page costs at most twice the selective range. Null when the selection
   * is empty by construction.
   */
  listQueries(
    plan: ListPlan,
    access: AccessFilter,
    sort = this.sortOf(plan, access),
  ): { page: Sql; walk?: Sql } | null {
    this.model.require();
    const selection = compileSelection(this.model.current, this.database.keys, plan, access);
    if (!selection.satisfiable) return null;
    const limit = plan.size + 1;
    const offset = plan.after === undefined ? (plan.offset ?? plan.page * plan.size) : 0;
    const measured = this.smallestMeasured(selection, this.driverLimit);
    const rangeOfSortField =
      sort.field === undefined
        ? undefined
        : selection.candidates.find((candidate) => candidate.sortedField === sort.field);
    const c = this.database.lookupKey(`c:${plan.className}`);
    const composite =
      sort.field === undefined || c === null
        ? undefined
        : this.sortedEqualityRange(c, selection.candidates, sort.field);
    const ordered =
      composite?.driver ??
      rangeOfSortField ??
      sort.driver ??
      (plan.sort === undefined
        ? (selection.candidates.find((candidate) => candidate.orderedByN) ?? selection.classDriver)
        : undefined);
    const query = (driver: Driver, walked?: number): Sql => {
      const seek = plan.after === undefined ? null : sort.after(driver, plan.after);
      const order = sort.orderBy(driver);
      if (walked === undefined) {
        const where = whereClause(
          selection,
          driver.repeating === undefined ? driver : { ...driver, where: driver.repeating.where },
        );
        return {
          text:
            `SELECT ${driver.repeating === undefined ? '' : 'DISTINCT '}${driver.n} FROM ${driver.from} ` +
            `WHERE ${where.text}${seek === null ? '' : ` AND ${seek.text}`} ` +
            `ORDER BY ${order.text} ${limitClause(limit)} OFFSET ?`,
          params: [...where.params, ...(seek?.params ?? []), ...order.params, offset],
        };
      }
      // The driver's first `walked` entries in order (its own range and the seek), then the other
      // conditions on those. Every driver is aliased `d`; the walked rows keep its key as `d.n`
      // and, on a value index range, its value as `d.v`, so the outer order is the driver's.
      const range = [driver.where, ...(seek === null ? [] : [seek])];
      const columns =
        driver.sortedField === undefined
          ? `${driver.n} AS n`
          : `${driver.n} AS n, ${driver.sortedValue ?? 'd.v'} AS v`;
      const walkedRows: Driver = {
        ...driver,
        n: 'd.n',
        where: { text: '1', params: [] },
        sortedValue: 'd.v',
      };
      const rest = whereClause(selection, walkedRows);
      const outer = sort.orderBy(walkedRows);
      return {
        text:
          `SELECT d.n FROM (SELECT ${columns} FROM ${driver.from} WHERE ${range.map((part) => part.text).join(' AND ')} ` +
          `ORDER BY ${order.text} ${limitClause(walked)}) d WHERE ${rest.text} ` +
          `ORDER BY ${outer.text} ${limitClause(limit)} OFFSET ?`,
        params: [
          ...range.flatMap((part) => part.params),
          ...order.params,
          ...rest.params,
          ...outer.params,
          offset,
        ],
      };
    };
    // A composite index range is the equality filter's own range in order: it serves the page alone
    // unless a smaller range of another filter drives it.
    if (measured === undefined || (composite !== undefined && measured.driver === composite.equality)) {
      return { page: query(ordered ?? selection.classDriver) };
    }
    const inOrderAlready =
      measured.driver === ordered || (plan.sort === undefined && measured.driver.orderedByN);
    return {
      page: query(measured.driver),
      ...(ordered === undefined || inOrderAlready || offset + limit > measured.count
        ? {}
        : { walk: query(ordered, measured.count) }),
    };
  }

  /** The sort of `plan` as SQL, a field's values read from its class value table when current. */
  sortOf(plan: ListPlan, access: AccessFilter): CompiledSort {
    return compileSort(this.model.current, this.database.keys, plan.className, plan.sort, access, (c, f) =>
      this.columns.valueOf(c, f),
    );
  }

  /**
   * The range of a composite (equality field, sort field) index serving an equality filter among
   * `candidates` in the order of `sortField` (class-columns.ts), with the filter's own driver.
   */
  private sortedEqualityRange(
    c: number,
    candidates: readonly Driver[],
    sortField: number,
  ): { readonly driver: Driver; readonly equality: Driver } | undefined {
    for (const equality of candidates) {
      const driver = this.columns.sortedEqualityDriver(c, equality, sortField);
      if (driver !== undefined) return { driver, equality };
    }
    return undefined;
  }

  /**
   * `FROM ... WHERE ...` yielding the non-empty index values `s.v` (with object key `s.n`) of one
   * field over a selection: walked from a selective filter's range when there is one (probing each
   * candidate's value), else from the field's own index range. A derived value computed from an
   * object `access` hides counts as empty (left out). Null when the field was never stored.
   */
  fieldValueRows(
    selection: CompiledSelection,
    className: string,
    fieldName: string,
    access: AccessFilter,
    selective = this.smallestCandidate(selection, this.driverLimit),
  ): Sql | null {
    const c = this.database.lookupKey(`c:${className}`);
    const f = this.database.lookupKey(`f:${fieldName}`);
    if (c === null || f === null) return null;
    const nonEmpty = `s.c = ? AND s.f = ? AND s.v > ${EMPTY_KEY}`;
    const hidden = hiddenSource(
      this.model.current,
      this.database.keys,
      className,
      fieldName,
      access,
    )?.('s.n');
    const unhidden = hidden === undefined ? '' : ` AND NOT ${hidden.text}`;
    const unhiddenParams = hidden?.params ?? [];
    if (selective === undefined) {
      const own: Driver = {
        from: 'ix s',
        where: { text: nonEmpty, params: [c, f] },
        n: 's.n',
        covers: [0],
        orderedByN: false,
      };
      const where = whereClause(selection, own);
      return {
        text: `FROM ix s WHERE ${where.text}${unhidden}`,
        params: [...where.params, ...unhiddenParams],
      };
    }
    const where = whereClause(selection, selective);
    return {
      text: `FROM ${selective.from} JOIN ix s ON s.n = ${selective.n} AND ${nonEmpty} WHERE ${where.text}${unhidden}`,
      params: [c, f, ...where.params, ...unhiddenParams],
    };
  }

  /**
   * The candidate driver with the fewest rows when that is below `limit` (measured by counting at
   * most `limit` index entries), else undefined.
   */
  smallestCandidate(selection: CompiledSelection, limit: number): Driver | undefined {
    return this.smallestMeasured(selection, limit)?.driver;
  }

  /** {@link smallestCandidate} with its measured row count. */
  private smallestMeasured(
    selection: CompiledSelection,
    limit: number,
  ): { readonly driver: Driver; readonly count: number } | undefined {
    let best: { driver: Driver; count: number } | undefined;
    for (const driver of selection.candidates) {
      const count = this.driverCount(driver, limit);
      if (count < limit && (best === undefined || count < best.count)) best = { driver, count };
    }
    return best;
  }

  /** The rows of `driver`'s range, counted up to `limit` (remembered: see `driverCounts`). */
  private driverCount(driver: Driver, limit: number): number {
    const key = `${limit}\u0000${driver.from}\u0000${driver.where.text}\u0000${JSON.stringify(driver.where.params)}`;
    const now = Date.now();
    const known = this.driverCounts.get(key);
    if (known !== undefined && now - known.at < DRIVER_COUNT_TTL_MS) return known.count;
    const count = this.database
      .statement(
        `SELECT count(*) FROM (SELECT 1 FROM ${driver.from} WHERE ${driver.where.text} ${limitClause(limit)})`,
      )
      .pluck()
      .get(...driver.where.params) as number;
    if (this.driverCounts.size >= MAX_DRIVER_COUNTS) this.driverCounts.clear();
    this.driverCounts.set(key, { count, at: now });
    return count;
  }
}
