/**
 * The JSON encoding of field values in request bodies (interface spec "Data types", model-format
 * section 3) and their stored form. Every check names what was expected so the 400 can name the
 * field; nothing here throws.
 */
import { MAX_JSON_DEPTH } from '@odp/core';
import type { FieldDef, Model, StoredFile } from '@odp/core';

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const FILE_ID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Recorded uploads a body may claim, by file id (see `UploadClaims.upload`). */
export type Uploads = ReadonlyMap<string, StoredFile>;

export type Encoded = { ok: true; value: unknown } | { ok: false; message: string };

const fail = (message: string): Encoded => ({ ok: false, message });
const ok = (value: unknown): Encoded => ({ ok: true, value });

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validDate(value: string): boolean {
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}

/**
 * One value of a field (an element, for multi-valued fields) in stored form. `existing` is the
 * field's stored value, so a FILE value sent back as just its href keeps its recorded metadata;
 * `uploads` are the recorded uploads a new FILE value may claim.
 */
function encodeOne(
  model: Model,
  field: FieldDef,
  value: unknown,
  existing: readonly StoredFile[],
  uploads: Uploads,
): Encoded {
  switch (field.type) {
    case 'TEXT':
    case 'TEXTBLOCK':
    case 'LONGTEXT':
    case 'SECRET':
      return typeof value === 'string' ? ok(value) : fail('must be a string');
    case 'EMAIL':
      return typeof value === 'string' && EMAIL_PATTERN.test(value)
        ? ok(value)
        : fail('must be an e-mail address');
    case 'INTEGER':
      return typeof value === 'number' && Number.isSafeInteger(value)
        ? ok(value)
        : fail('must be an integer');
    case 'DECIMAL':
    case 'CURRENCY':
    case 'PERCENTAGE':
      return typeof value === 'number' && Number.isFinite(value) ? ok(value) : fail('must be a number');
    case 'BOOLEAN':
      return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
    case 'DATE':
      return typeof value === 'string' && DATE_PATTERN.test(value) && validDate(value)
        ? ok(value)
        : fail('must be a date YYYY-MM-DD');
    case 'DATETIME':
      return typeof value === 'string' && DATETIME_PATTERN.test(value) && !Number.isNaN(Date.parse(value))
        ? ok(new Date(value).toISOString())
        : fail('must be an ISO-8601 timestamp with offset');
    case 'TIME':
      return typeof value === 'string' && TIME_PATTERN.test(value)
        ? ok(value)
        : fail('must be a time HH:MM or HH:MM:SS');
    case 'LIST': {
      const list = field.list ? model.lists.get(field.list) : undefined;
      return typeof value === 'string' && list?.values.some((entry) => entry.key === value)
        ? ok(value)
        : fail(`must be a key of the list ${field.list ?? ''}`.trim());
    }
    case 'JSON':
      return nestsDeeperThan(value, MAX_JSON_DEPTH)
        ? fail(`nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`)
        : ok(value);
    case 'ARRAY':
      return Array.isArray(value) &&
        value.every((item) => typeof item === 'string' || typeof item === 'number')
        ? ok(value)
        : fail('must be an array of strings or numbers');
    case 'FILE':
    case 'IMAGE':
      return encodeFile(value, existing, uploads);
  }
}

/** The file id a FILE value names: the UUID ending its href (`/binaries/<id>` or a download href). */
export function fileIdOf(value: unknown): string | undefined {
  const href = typeof value === 'string' ? value : isPlainObject(value) ? value['href'] : undefined;
  return typeof href === 'string' ? FILE_ID_PATTERN.exec(href)?.[0]?.toLowerCase() : undefined;
}

/**
 * A FILE value: a file the field already holds (its href alone, or its descriptor unchanged), or
 * the descriptor of a recorded upload, unchanged. Anything else, a client-made descriptor included,
 * is refused: the metadata of a file is always the server's.
 */
function encodeFile(value: unknown, existing: readonly StoredFile[], uploads: Uploads): Encoded {
  const fileId = fileIdOf(value);
  if (!fileId) return fail('must be an upload descriptor {href, fileName, contentType, size}');
  const kept = existing.find((file) => file.fileId === fileId);
  if (typeof value === 'string')
    return kept ? ok(kept) : fail('must be an upload descriptor or the href of a kept file');
  const descriptor = value as Record<string, unknown>;
  const { fileName, contentType, size } = descriptor;
  if (
    typeof fileName !== 'string' ||
    typeof contentType !== 'string' ||
    typeof size !== 'number' ||
    !Number.isSafeInteger(size)
  ) {
    return fail('must be an upload descriptor {href, fileName, contentType, size}');
  }
  const recorded = kept ?? uploads.get(fileId);
  if (!recorded) return fail('does not match an upload or a file of this field');
  if (recorded.fileName !== fileName || recorded.contentType !== contentType || recorded.size !== size) {
    return fail(
      kept ? 'does not match the stored file' : 'does not match the upload (fileName, contentType, size)',
    );
  }
  return ok({
    fileId,
    fileName: recorded.fileName,
    contentType: recorded.contentType,
    size: recorded.size,
  } satisfies StoredFile);
}

/**
 * A field's value from a body: the stored form (an array for multi-valued fields), or a message.
 * `stored` is the field's current value; `uploads` the recorded uploads a FILE value may claim.
 */
export function encodeField(
  model: Model,
  field: FieldDef,
  value: unknown,
  stored: unknown,
  uploads: Uploads = new Map(),
): Encoded {
  const existing = storedFiles(stored);
  if (!field.multiple || field.type === 'ARRAY') return encodeOne(model, field, value, existing, uploads);
  if (!Array.isArray(value)) return fail('must be an array');
  const values: unknown[] = [];
  const files = new Set<string>();
  for (const item of value) {
    const encoded = encodeOne(model, field, item, existing, uploads);
    if (!encoded.ok) return encoded;
    const fileId = (field.type === 'FILE' || field.type === 'IMAGE') && fileIdOf(item);
    if (fileId && files.has(fileId)) return fail('holds the same file twice');
    if (fileId) files.add(fileId);
    values.push(encoded.value);
  }
  return ok(values);
}

/**
 * Whether two JSON values are equal (object member order ignored, so a re-sent value compares
 * equal to the stored one). Iterative, with its own stack: a value nested too deep for recursion
 * (stored before bodies were limited in depth) compares without exhausting the call stack.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  // Most comparisons are of two scalars (a write compares every field): answered without a stack.
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const pending: [unknown, unknown][] = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [left, right] = pair;
    if (left === right) continue;
    if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null)
      return false;
    if (Array.isArray(left)) {
      if (!Array.isArray(right) || left.length !== right.length) return false;
      for (let i = 0; i < left.length; i++) pending.push([left[i], right[i]]);
      continue;
    }
    if (Array.isArray(right)) return false;
    const leftObject = left as Record<string, unknown>;
    const rightObject = right as Record<string, unknown>;
    const keys = Object.keys(leftObject).filter((key) => leftObject[key] !== undefined);
    if (keys.length !== Object.keys(rightObject).filter((key) => rightObject[key] !== undefined).length)
      return false;
    for (const key of keys) {
      if (!Object.hasOwn(rightObject, key)) return false;
      pending.push([leftObject[key], rightObject[key]]);
    }
  }
  return true;
}

/**
 * Whether arrays and objects nest in `value` deeper than `limit` levels (a scalar is level 0).
 * Iterative, so any depth is measured without exhausting the call stack. Every write path (HTTP,
 * default data, formulas) stores JSON values through it, so no stored value is deeper.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [current, depth] = entry;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const member of Object.values(current)) pending.push([member, depth + 1]);
  }
  return false;
}

export function storedFiles(stored: unknown): StoredFile[] {
  const values = Array.isArray(stored) ? stored : stored === undefined || stored === null ? [] : [stored];
  return values.filter(
    (value): value is StoredFile => isPlainObject(value) && typeof value['fileId'] === 'string',
  );
}

/**
 * Converts a formula result to the stored form of the field's type, or undefined when it cannot be
 * one (a formula that yields nothing usable leaves the field empty rather than failing the save).
 */
export function coerceComputed(model: Model, field: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  const attempt = (candidate: unknown): unknown => {
    const encoded = encodeField(model, field, candidate, undefined);
    return encoded.ok ? encoded.value : undefined;
  };
  switch (field.type) {
    case 'INTEGER':
      return attempt(typeof value === 'number' ? Math.round(value) : Math.round(Number(value)));
    case 'DECIMAL':
    case 'CURRENCY':
    case 'PERCENTAGE':
      return attempt(typeof value === 'number' ? value : Number(value));
    case 'TEXT':
    case 'TEXTBLOCK':
    case 'LONGTEXT':
    case 'EMAIL':
    case 'LIST':
    case 'SECRET':
      return attempt(typeof value === 'string' ? value : String(value));
    case 'DATE':
      return attempt(typeof value === 'string' ? value.slice(0, 10) : value);
    default:
      return attempt(value);
  }
}
