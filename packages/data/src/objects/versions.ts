/**
 * Object versions as HTTP validators. Every write of an object moves its `modifiedAt` strictly
 * forward (see `UnitOfWork.put`), derived values recalculated by a write to a neighbour included,
 * so `modifiedAt` names one stored version of the object: its entity tag is that value in quotes,
 * a strong validator (the same tag the object's `_modificationDate` gives a client that read it
 * in a list).
 */
import { PreconditionFailedError } from '@odp/core';
import type { StoredObject } from '@odp/core';

/** A write's condition on the object's version: the entity tags of `If-Match`, or `*` (any version). */
export type IfMatch = '*' | readonly string[];

/**
 * The entity tags of an `If-Match` or `If-None-Match` value (RFC 9110: `*`, or a comma-separated
 * list of quoted tags, weak ones prefixed `W/`), as sent. Text that is no tag is left out, so a
 * malformed list matches no version.
 */
export function parseEntityTags(value: string): IfMatch {
  if (value.trim() === '*') return '*';
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** The entity tag of the object's stored version. */
export function versionTag(object: Pick<StoredObject, 'modifiedAt'>): string {
  return `"${object.modifiedAt}"`;
}

/**
 * PreconditionFailedError (412) unless `object` is the version one of `ifMatch`'s tags names
 * (strong comparison: a weak tag never matches). No condition, or `*`, holds for any version of an
 * existing object. Called inside the unit of work, on the version its write expects to replace, so
 * a write that lands in between refuses the batch and the retry sees the new version: the check and
 * the write are one atomic step.
 */
export function assertVersion(object: Pick<StoredObject, 'modifiedAt'>, ifMatch: IfMatch | undefined): void {
  if (ifMatch === undefined || ifMatch === '*') return;
  const tag = versionTag(object);
  if (!ifMatch.includes(tag)) throw new PreconditionFailedError(tag);
}
