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
import type { AccessFilter, Model, Selection } from '@odp/core';
import { compileAccess, hiddenSource } from './access.js';
import { compileFilter } from './filters.js';
import { joined, linkSide, negated } from './sql.js';
import type { CompiledSelection, Condition, Driver, KeyLookup } from './sql.js';

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
 * {@link compileAccess}); a list page selects its keys DISTINCT instead (`Driver.repeating`).
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
  const held = 'd.ac IN (SELECT value FROM json_each(?)) AND d.c = ?';
  return {
    from: 'acl_cls d',
    where: {
      text:
        `${held} AND NOT EXISTS (SELECT 1 FROM acl_cls e WHERE e.n = d.n AND e.c = d.c AND e.ac < d.ac ` +
        'AND +e.ac IN (SELECT value FROM json_each(?)))',
      params: [acIds, c, acIds],
    },
    repeating: { where: { text: held, params: [acIds, c] } },
    n: 'd.n',
    covers: [0, accessIndex],
    orderedByN: false,
  };
}
