/**
 * The access filter as SQL conditions: which objects an account sees, which linked objects it may
 * follow, and which derived values were computed from an object it may not read.
 */
import { derivedSources } from '@odp/core';
import type { AccessFilter, Model, SourcePath } from '@odp/core';
import { linkSide } from './sql.js';
import type { Condition, KeyLookup, Sql } from './sql.js';

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
 * The access filter on the object at the other end of a link: relation filters, relation sorts and
 * relation buckets treat a link to an object the account cannot read as absent, so they never
 * reveal an unreadable object (its id, its name or its existence).
 */
export function visibleLinked(keys: KeyLookup, access: AccessFilter, n: string): Sql {
  return compileAccess(keys, access)?.(n) ?? { text: '1', params: [] };
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
