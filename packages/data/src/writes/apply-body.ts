/**
 * How a Create or Patch body changes a draft: field values encoded and checked, uploads claimed by
 * FILE and IMAGE values, relation URIs resolved to objects the account can read.
 */
import type { Account, FieldDef, FieldError, RelationEnd, StoredFile } from '@odp/core';
import { NotFoundError, ValidationError, jsonBytesInSlices } from '@odp/core';
import { isUuid } from '@odp/query-engine';
import { fieldsOf, isAny, isEligible, relationsOf } from '../classes.js';
import type { Draft } from '../compute.js';
import { sealSecret } from '../compute.js';
import { encodeField, fileIdOf, isPlainObject, storedFiles } from '../encode.js';
import { filesByField } from '../held-files.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { Body, WriteContext } from './write-context.js';

export class BodyApplier {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * Applies a Create or Patch body to the draft. Unknown keys (including `__proto__` and
   * `constructor` unless the model has such a field) and inverse sides are ignored; every type
   * error is collected and reported at once (400), an unresolvable relation URI is a 404.
   * Returns the fields a patch explicitly cleared.
   */
  async apply(
    account: Account,
    uow: UnitOfWork,
    draft: Draft,
    body: Body,
    mode: 'create' | 'patch',
    supplied?: string,
  ): Promise<Set<string>> {
    const fields = fieldsOf(this.ctx.model, draft.classes);
    const ends = relationsOf(this.ctx.model, draft.classes);
    const errors: FieldError[] = [];
    const cleared = new Set<string>();
    const references: { end: RelationEnd; refs: unknown[] }[] = [];
    const uploads = await this.uploadsIn(body, fields, draft);
    for (const key of Object.keys(body)) {
      const value = body[key];
      const field = fields.get(key);
      if (field) {
        if (value === null || value === '' || (value === undefined && mode === 'patch')) {
          delete draft.values[key];
          if (mode === 'patch') cleared.add(key);
          continue;
        }
        const encoded = encodeField(this.ctx.model, field, value, draft.values[key], uploads);
        const maxBytes = this.ctx.deps.limits?.maxValueBytes;
        if (!encoded.ok) errors.push({ field: key, message: encoded.message });
        else if (maxBytes !== undefined && (await jsonBytesInSlices(encoded.value, uow.slices)) > maxBytes)
          errors.push({ field: key, message: `is larger than ${maxBytes} bytes` });
        else
          draft.values[key] =
            field.type === 'SECRET' ? sealSecret(this.ctx.deps, encoded.value) : encoded.value;
        continue;
      }
      const end = ends.get(key);
      if (!end || end.direction !== 'forward' || key === supplied) continue;
      if (end.multiple) {
        if (value === null) continue;
        if (!Array.isArray(value)) errors.push({ field: key, message: 'must be an array of URIs' });
        else references.push({ end, refs: value });
      } else if (value === null || value === '') {
        delete draft.links[end.relation.key];
      } else if (typeof value !== 'string') {
        errors.push({ field: key, message: 'must be a URI' });
      } else {
        references.push({ end, refs: [value] });
      }
    }
    for (const { end, refs } of references) {
      for (const ref of refs)
        if (typeof ref !== 'string') errors.push({ field: end.name, message: 'must be an array of URIs' });
    }
    const held = new Set<string>();
    for (const [field, files] of filesByField(this.ctx.model, draft)) {
      for (const { fileId } of files) {
        if (held.has(fileId)) errors.push({ field: field.name, message: 'holds a file another field holds' });
        held.add(fileId);
      }
    }
    if (errors.length > 0) throw new ValidationError('Invalid values.', dedupe(errors));
    const filter = await this.ctx.deps.access.accessFilter(account);
    for (const { end, refs } of references) {
      const ids: string[] = [];
      for (const ref of refs as string[]) {
        const id = this.idOf(ref);
        const visible = id ? await this.ctx.deps.store.get(id, filter) : null;
        if (visible) uow.remember(visible);
        const linked = visible ? await uow.load(visible.id) : null;
        if (!linked) throw new NotFoundError(`The related object of ${end.name} was not found.`);
        const target = this.ctx.model.classes.get(end.otherClass);
        if (
          !target ||
          !(isAny(linked.classes, [target.name]) || isEligible(this.ctx.model, linked.basicClass, target))
        ) {
          errors.push({ field: end.name, message: `must link ${target?.plural ?? end.otherClass}` });
        }
        if (!ids.includes(linked.id)) ids.push(linked.id);
      }
      if (ids.length > 0) draft.links[end.relation.key] = ids;
      else delete draft.links[end.relation.key];
    }
    if (errors.length > 0) throw new ValidationError('Invalid values.', dedupe(errors));
    return cleared;
  }

  /**
   * The recorded uploads the FILE and IMAGE values of `body` name (descriptors whose file the field
   * does not hold yet), looked up once before the body is encoded.

   */
  private async uploadsIn(
    body: Body,
    fields: ReadonlyMap<string, FieldDef>,
    draft: Draft,
  ): Promise<Map<string, StoredFile>> {
    const uploads = new Map<string, StoredFile>();
    const files = this.ctx.deps.files;
    if (!files) return uploads;
    for (const [key, value] of Object.entries(body)) {
      const field = fields.get(key);
      if (!field || (field.type !== 'FILE' && field.type !== 'IMAGE')) continue;
      const held = new Set(storedFiles(draft.values[key]).map((file) => file.fileId));
      for (const item of Array.isArray(value) ? value : [value]) {
        const fileId = isPlainObject(item) ? fileIdOf(item) : undefined;
        if (!fileId || held.has(fileId) || uploads.has(fileId)) continue;
        const upload = await files.upload(fileId);
        if (upload) uploads.set(fileId, upload);
      }
    }
    return uploads;
  }

  /** The object id of a relation value: a bare UUID, or a URI of this tenant ending in one. */
  private idOf(ref: string): string | null {
    const trimmed = ref.trim();
    if (isUuid(trimmed)) return trimmed.toLowerCase();
    let path: string;
    try {
      path = new URL(trimmed, 'http://localhost').pathname;
    } catch {
      return null;
    }
    const segments = path.split('/').filter(Boolean);
    const id = segments.at(-1) ?? '';
    return segments[0] === 'data' &&
      segments[1] === this.ctx.deps.tenantId &&
      segments.length >= 4 &&
      isUuid(id)
      ? id.toLowerCase()
      : null;
  }
}

function dedupe(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.field}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
