/**
 * The TypeScript type of one field's values on the wire (docs/data-api.md, "Create and patch";
 * docs/interface.md, "DataObject"): as read (files as `OdpFile`, history fields as
 * `OdpHistory<T>`) and as written (files as an upload descriptor or a held file's `href`).
 */
import type { DataType, FieldDef } from '@odp/core';

/** The shared shapes every generated file declares (the client's `Link`, `MultiLink`, ...). */
export const SHARED_DECLARATIONS = `/** A single-valued relation as read. */
export interface OdpLink { readonly href: string; readonly name?: string | null }
/** A multi-valued relation as read: its related list and the current links. */
export interface OdpMultiLink { readonly href: string; readonly values?: readonly OdpLink[]; readonly more?: boolean }
/** A FILE or IMAGE value as read (\`href\`: its download route) and an upload descriptor to write. */
export interface OdpFile { readonly href: string; readonly fileName: string; readonly contentType: string; readonly size: number }
/** A history-enabled field as read. */
export interface OdpHistory<T> {
  readonly current: T;
  readonly history: readonly { readonly value: T; readonly validFrom: string; readonly modifiedBy: string | null }[];
}
/** A relation as written: the related object's URI (\`_links._self.href\`) or its id. */
export type OdpRef = string;
`;

export const SHARED_NAMES: ReadonlySet<string> = new Set([
  'OdpLink',
  'OdpMultiLink',
  'OdpFile',
  'OdpHistory',
  'OdpRef',
  'Schema',
]);

const SCALAR: Record<Exclude<DataType, 'LIST' | 'FILE' | 'IMAGE'>, string> = {
  TEXT: 'string',
  TEXTBLOCK: 'string',
  LONGTEXT: 'string',
  SECRET: 'string',
  EMAIL: 'string',
  INTEGER: 'number',
  DECIMAL: 'number',
  CURRENCY: 'number',
  PERCENTAGE: 'number',
  BOOLEAN: 'boolean',
  DATE: 'string',
  DATETIME: 'string',
  TIME: 'string',
  JSON: 'unknown',
  ARRAY: '(string | number)[]',
};

/** One value of the field (not multiple), as read; `listType` names the union of a LIST's keys. */
export function scalarType(field: FieldDef, listType: (list: string) => string): string {
  if (field.type === 'LIST') return field.list === undefined ? 'string' : listType(field.list);
  if (field.type === 'FILE' || field.type === 'IMAGE') return 'OdpFile';
  return SCALAR[field.type];
}

const many = (type: string, field: FieldDef): string =>
  field.multiple && field.type !== 'ARRAY' ? `readonly ${/[ |]/.test(type) ? `(${type})` : type}[]` : type;

/** The field as a read object carries it. */
export function readType(field: FieldDef, listType: (list: string) => string): string {
  const value = many(scalarType(field, listType), field);
  return field.history ? `OdpHistory<${value}>` : value;
}

/** The field as a create or patch body carries it. */
export function writeType(field: FieldDef, listType: (list: string) => string): string {
  const isFile = field.type === 'FILE' || field.type === 'IMAGE';
  return many(isFile ? 'OdpFile | string' : scalarType(field, listType), field);
}
