import type { DataType, FieldDef } from '@odp/core';
import { buildModel, fieldDef } from '@odp/testkit';
import { coerceComputed, encodeField, nestsDeeperThan, sameJson } from './encode.js';

const model = buildModel([], [{ name: 't.kind', values: [{ key: 'a', label: 'A' }] }]);

function field(type: DataType, extra: Partial<FieldDef> = {}): FieldDef {
  return fieldDef('f', type, 't.c', { ...(type === 'LIST' ? { list: 't.kind' } : {}), ...extra });
}

const FILE_ID = '11111111-2222-4333-8444-555555555555';
const descriptor = {
  href: `/binaries/${FILE_ID}`,
  fileName: 'a.pdf',
  contentType: 'application/pdf',
  size: 3,
};
const stored = { fileId: FILE_ID, fileName: 'a.pdf', contentType: 'application/pdf', size: 3 };
/** The recorded uploads a body may claim. */
const uploads = new Map([[FILE_ID, stored]]);

describe('encodeField: one row per data type', () => {
  it.each<[DataType, unknown, unknown, unknown]>([
    // type, valid input, stored form, invalid input
    ['TEXT', 'x', 'x', 1],
    ['TEXTBLOCK', 'a\nb', 'a\nb', null],
    ['LONGTEXT', 'long', 'long', {}],
    ['EMAIL', 'a@b.c', 'a@b.c', 'a.b.c'],
    ['INTEGER', 3, 3, 3.5],
    ['DECIMAL', 3.25, 3.25, '3.25'],
    ['CURRENCY', -10.5, -10.5, Number.NaN],
    ['PERCENTAGE', 12.5, 12.5, '12.5'],
    ['BOOLEAN', false, false, 0],
    ['DATE', '2024-02-29', '2024-02-29', '2023-02-29'],
    ['DATETIME', '2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00.000Z', '2024-01-01T10:00:00'],
    ['TIME', '23:59', '23:59', '24:00'],
    ['LIST', 'a', 'a', 'b'],
    ['JSON', { a: [1] }, { a: [1] }, undefined],
    ['SECRET', 's', 's', 5],
    ['ARRAY', ['a', 1], ['a', 1], [true]],
    ['FILE', descriptor, stored, { href: '/binaries/not-a-file' }],
    ['IMAGE', descriptor, stored, { ...descriptor, size: '3' }],
  ])('%s', (type, valid, storedForm, invalid) => {
    expect(encodeField(model, field(type), valid, undefined, uploads)).toEqual({
      ok: true,
      value: storedForm,
    });
    if (invalid !== undefined)
      expect(encodeField(model, field(type), invalid, undefined, uploads).ok).toBe(false);
  });

  it('requires an array for a multi-valued field and checks each element', () => {
    const multiple = field('INTEGER', { multiple: true });
    expect(encodeField(model, multiple, [1, 2], undefined)).toEqual({ ok: true, value: [1, 2] });
    expect(encodeField(model, multiple, 1, undefined)).toEqual({ ok: false, message: 'must be an array' });
    expect(encodeField(model, multiple, [1, 'x'], undefined).ok).toBe(false);
  });

  it('keeps a stored file sent back as its href, and refuses changed metadata for it', () => {
    const files = field('FILE', { multiple: true });
    expect(encodeField(model, files, [descriptor.href], [stored])).toEqual({ ok: true, value: [stored] });
    expect(encodeField(model, files, [descriptor.href], []).ok).toBe(false);
    expect(encodeField(model, files, [{ ...descriptor, fileName: 'b.pdf' }], [stored]).ok).toBe(false);
  });
});

describe("encodeField: FILE values are the server's", () => {
  it('refuses a descriptor that matches no recorded upload and no held file', () => {
    const forged = { ...descriptor, fileName: '..\\..\\x.svg', contentType: 'image/svg+xml' };
    expect(encodeField(model, field('IMAGE'), forged, undefined)).toEqual({
      ok: false,
      message: 'does not match an upload or a file of this field',
    });
    expect(encodeField(model, field('FILE'), descriptor, undefined).ok).toBe(false);
  });

  it.each([
    ['fileName', 'b.pdf'],
    ['contentType', 'text/html'],
    ['size', 4],
  ])('refuses an upload descriptor whose %s differs from the record', (key, value) => {
    expect(encodeField(model, field('FILE'), { ...descriptor, [key]: value }, undefined, uploads)).toEqual({
      ok: false,
      message: 'does not match the upload (fileName, contentType, size)',
    });
  });

  it('refuses one file twice in a multi-valued field', () => {
    const files = field('FILE', { multiple: true });
    expect(encodeField(model, files, [descriptor, descriptor.href], undefined, uploads).ok).toBe(false);
  });
});

describe('coerceComputed', () => {
  it.each<[DataType, unknown, unknown]>([
    ['INTEGER', 2.6, 3],
    ['CURRENCY', '12.5', 12.5],
    ['TEXT', 12, '12'],
    ['DATE', '2024-01-01T10:00:00.000Z', '2024-01-01'],
    ['LIST', 'zzz', undefined],
    ['BOOLEAN', null, undefined],
  ])('%s from %p', (type, value, expected) => {
    expect(coerceComputed(model, field(type), value)).toEqual(expected);
  });
});

describe('deeply nested JSON values', () => {
  const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

  it('measures nesting without recursion', () => {
    expect(nestsDeeperThan('x', 0)).toBe(false);
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: nested(62) }] }, 64)).toBe(true);
    expect(nestsDeeperThan(nested(200_000), 64)).toBe(true);
  });

  it('refuses a JSON field value deeper than 64 levels', () => {
    expect(encodeField(model, field('JSON'), nested(64), undefined)).toEqual({ ok: true, value: nested(64) });
    expect(encodeField(model, field('JSON'), nested(65), undefined)).toEqual({
      ok: false,
      message: 'nests arrays and objects deeper than 64 levels',
    });
  });

  it('compares values of any depth without recursion, ignoring member order', () => {
    expect(sameJson(nested(100_000), nested(100_000))).toBe(true);
    expect(sameJson(nested(100_000), nested(99_999))).toBe(false);
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
