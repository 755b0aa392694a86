/**
 * The object document: how a StoredObject is held in a tenant's `objects` collection, with the
 * derived fields the queries use. Everything a read filters on lives on the object's own document
 * (classes, typed value keys, link entries, ACL ids), so a query never joins ($lookup) and one
 * document is the unit of atomicity.
 *
 * - `vals` holds the values as JSON text: values (JSON fields above all) may contain keys with `.`
 *   or a leading `$`, which document keys must not.
 * - `lk` holds one entry `<relation key>><target id>` per link, in order per relation: relation keys
 *   contain `.`, so they are never document keys; one multikey index serves every relation.
 * - `x_<field>` holds the comparable keys of an indexed field (see `indexKeysOf`), text folded to
 *   lower case; `d_<field>` the same keys unfolded, for distinct values. Fields are named by their
 *   declaring class and name, encoded (see `fieldPath`), so two classes never share a key.
 */
import { foldCase, indexKeysOf, indexedFields, searchTextOf } from '@odp/core';
import type { AclRow, FieldDef, IndexKey, Model, StoredObject } from '@odp/core';

/** One ACL row as carried by the object document. */
export interface AclEntry {
  readonly a: string;
  readonly n: string;
  readonly d: string;
}

export interface ObjectDoc {
  _id: string;
  /** Creation order: assigned once from the tenant's counter and kept by replacements. */
  seq: number;
  /** Incremented by every change of the document; a replacement names the version it read. */
  v: number;
  basic: string;
  classes: string[];
  name: string | null;
  /** The name folded for case-insensitive relation-name filters and sorts. */
  nk: string | null;
  vals: string;
  lk: string[];
  /** The ids the object links to (for incoming links and for removing links to a deleted object). */
  lt: string[];
  acl: AclEntry[];
  /** The acIds of `acl`, for the access filter. */
  ac: string[];
  createdAt: string;
  modifiedAt: string;
  /** The distinct search words of the object's text (see `searchWords`). */
  sw: string[];
  /** How many words the text has (ranking prefers the shorter text). */
  sn: number;
  [derived: `x_${string}` | `d_${string}`]: IndexKey[];
}

/** Separates the relation key from the target id in an `lk` entry (neither ever contains it). */
const LINK_SEPARATOR = '>';

/**
 * Case folding of text for comparisons (filters, sorts, unique checks, name filters): core's
 * Unicode `foldCase`, held in the `x_` fields and `nk`, so comparisons are plain binary ones on
 * every server (no collation needed; FerretDB v1 has none).
 */
export function fold(text: string): string {
  return foldCase(text);
}

/** An index key as compared: text folded, numbers as they are. */
export function comparable(key: IndexKey): IndexKey {
  return typeof key === 'string' ? fold(key) : key;
}

/**
 * The document field of an indexed field: its declaring class and name with every character other
 * than a letter or digit written as `_` and two hex digits (injective, and never `.` or `$`).
 */
export function fieldPath(field: FieldDef, prefix: 'x' | 'd' = 'x'): `x_${string}` | `d_${string}` {
  const encoded = `${field.declaredOn}#${field.name}`.replace(
    /[^A-Za-z0-9]/g,
    (char) => `_${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return `${prefix}_${encoded}`;
}

export function linkEntry(relationKey: string, targetId: string): string {
  return `${relationKey}${LINK_SEPARATOR}${targetId}`;
}

/** The `lk` entries of one relation start with this. */
export function linkPrefix(relationKey: string): string {
  return `${relationKey}${LINK_SEPARATOR}`;
}

export function parseLinkEntry(entry: string): { relationKey: string; targetId: string } {
  const at = entry.indexOf(LINK_SEPARATOR);
  return { relationKey: entry.slice(0, at), targetId: entry.slice(at + 1) };
}

/** The targets of one relation among `lk` entries, in order. */
export function targetsOf(entries: readonly string[], relationKey: string): string[] {
  const prefix = linkPrefix(relationKey);
  return entries.filter((entry) => entry.startsWith(prefix)).map((entry) => entry.slice(prefix.length));
}

/** The indexed fields of an object's classes, each once (the first class declaring a name wins). */
export function objectIndexedFields(model: Model, classes: readonly string[]): FieldDef[] {
  const byPath = new Map<string, FieldDef>();
  for (const className of classes) {
    const classDef = model.classes.get(className);
    if (classDef === undefined) continue;
    for (const field of indexedFields(classDef)) {
      const path = fieldPath(field);
      if (!byPath.has(path)) byPath.set(path, field);
    }
  }
  return [...byPath.values()];
}

/**
 * The document of an object under `model`. `seq`, `v` and the ACL rows come from the stored
 * document (a put replaces values and links, never the creation order or the ACL rows).
 */
export function toDocument(
  model: Model,
  object: StoredObject,
  kept: { readonly seq: number; readonly v: number; readonly acl: readonly AclEntry[] },
): ObjectDoc {
  const lk: string[] = [];
  const lt = new Set<string>();
  for (const [relationKey, targets] of Object.entries(object.links)) {
    for (const target of targets) {
      lk.push(linkEntry(relationKey, target));
      lt.add(target);
    }
  }
  const doc: ObjectDoc = {
    _id: object.id,
    seq: kept.seq,
    v: kept.v,
    basic: object.basicClass,
    classes: [...object.classes],
    name: object.name,
    nk: object.name === null ? null : fold(object.name),
    vals: JSON.stringify(object.values),
    lk,
    lt: [...lt],
    acl: [...kept.acl],
    ac: [...new Set(kept.acl.map((row) => row.a))],
    createdAt: object.createdAt,
    modifiedAt: object.modifiedAt,
    ...searchFields(searchTextOf(model, object)),
  };
  for (const field of objectIndexedFields(model, object.classes)) {
    const keys = indexKeysOf(field, object.values[field.name]);
    if (keys.length === 0) continue;
    // Keys are deduplicated after folding, so an object counts once per value in distinct buckets.
    const folded = new Map<IndexKey, IndexKey>();
    for (const key of keys) if (!folded.has(comparable(key))) folded.set(comparable(key), key);
    doc[fieldPath(field)] = [...folded.keys()];
    if (keys.some((key) => typeof key === 'string')) doc[fieldPath(field, 'd')] = [...folded.values()];
  }
  return doc;
}

/**
 * The words of a text as the search index holds them: runs of letters, digits and marks (as
 * `searchTerms` cuts a query), accents removed and case folded, so a query matches whatever
 * accents or case either side was typed with.
 */
export function searchWords(text: string): string[] {
  return (text.normalize('NFD').match(/[\p{L}\p{N}\p{M}]+/gu) ?? [])
    .map((word) => word.replace(/\p{M}/gu, '').toLowerCase())
    .filter((word) => word !== '');
}

/** The search fields of an object document for its text. */
export function searchFields(text: string): Pick<ObjectDoc, 'sw' | 'sn'> {
  const words = searchWords(text);
  return { sw: [...new Set(words)], sn: words.length };
}

/** The StoredObject of a document. */
export function fromDocument(doc: ObjectDoc): StoredObject {
  const links: Record<string, string[]> = {};
  for (const entry of doc.lk) {
    const { relationKey, targetId } = parseLinkEntry(entry);
    (links[relationKey] ??= []).push(targetId);
  }
  return {
    id: doc._id,
    basicClass: doc.basic,
    classes: doc.classes,
    name: doc.name,
    values: JSON.parse(doc.vals) as Record<string, unknown>,
    links,
    createdAt: doc.createdAt,
    modifiedAt: doc.modifiedAt,
  };
}

export function aclRowsOfDocument(doc: Pick<ObjectDoc, 'acl'>): AclRow[] {
  return doc.acl
    .map((row) => ({ acId: row.a, nodeId: row.n, definition: row.d }))
    .sort(
      (a, b) =>
        compareText(a.acId, b.acId) ||
        compareText(a.nodeId, b.nodeId) ||
        compareText(a.definition, b.definition),
    );
}

/** Binary (code unit) order of strings, as SQLite's default collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
