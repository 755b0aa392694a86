/**
 * The model and object factory the store contract suites use: organisations and companies with one
 * field of every data type, a subclass, persons employed by companies, the role class shareholder
 * gained through `company.shareholders`, invoices with a client.
 */
import type { Model } from '@odp/core';
import type { StoredObject } from '@odp/core';
import { buildModel } from './model-builder.js';

export const contractModel: Model = buildModel(
  [
    { name: 'ct.organisation', plural: 'organisations', fields: [['legalName', 'TEXT']] },
    {
      name: 'ct.company',
      plural: 'companies',
      extends: ['ct.organisation'],
      fields: [
        ['revenue', 'CURRENCY'],
        ['employees', 'INTEGER'],
        ['rating', 'DECIMAL'],
        ['margin', 'PERCENTAGE'],
        ['founded', 'DATE'],
        ['checkedAt', 'DATETIME'],
        ['opensAt', 'TIME'],
        ['active', 'BOOLEAN'],
        ['email', 'EMAIL', { unique: true }],
        ['kind', 'LIST', { list: 'ct.kind' }],
        ['tags', 'TEXT', { multiple: true }],
        ['notes', 'LONGTEXT'],
        ['settings', 'JSON'],
        ['apiKey', 'SECRET'],
        ['internalCode', 'TEXT', { hidden: true }],
        ['logo', 'IMAGE'],
      ],
      relations: [{ name: 'shareholders', target: 'ct.shareholder', multiple: true, inverse: 'holdings' }],
    },
    {
      name: 'ct.subsidiary',
      plural: 'subsidiaries',
      extends: ['ct.company'],
      fields: [['parentCode', 'TEXT']],
    },
    {
      name: 'ct.person',
      plural: 'persons',
      fields: [['lastName', 'TEXT']],
      relations: [{ name: 'employer', target: 'ct.company', multiple: false, inverse: 'employees' }],
    },
    {
      name: 'ct.shareholder',
      plural: 'shareholders',
      attachableTo: ['ct.person', 'ct.company'],
      fields: [['share', 'PERCENTAGE']],
    },
    {
      name: 'ct.invoice',
      plural: 'invoices',
      fields: [
        ['amount', 'CURRENCY'],
        ['number', 'TEXT'],
      ],
      relations: [{ name: 'client', target: 'ct.company', multiple: false, inverse: 'invoices' }],
    },
  ],
  [
    {
      name: 'ct.kind',
      values: [
        { key: 'bv', label: 'Private limited company' },
        { key: 'nv', label: 'Public company' },
      ],
    },
  ],
);

/** Relation storage keys of the contract model. */
export const REL = {
  employer: 'ct.person#employer',
  client: 'ct.invoice#client',
  shareholders: 'ct.company#shareholders',
} as const;

/** A deterministic UUID for object number `n`. */
export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
}

export interface ObjectSpec {
  readonly n: number;
  readonly basicClass: string;
  readonly name?: string | null;
  readonly values?: Readonly<Record<string, unknown>>;
  /** Relation key -> object numbers. */
  readonly links?: Readonly<Record<string, readonly number[]>>;
  /** Gained role classes (their ancestors are added). */
  readonly gained?: readonly string[];
  /** Creation time offset in seconds (default: `n`), so creation order follows `n` unless told. */
  readonly createdSecond?: number;
}

/** A StoredObject of the contract model: classes = basic class, ancestors, gained classes and theirs. */
export function storedObject(spec: ObjectSpec, model: Model = contractModel): StoredObject {
  const classes = [spec.basicClass, ...(spec.gained ?? [])].flatMap(
    (name) => model.classes.get(name)?.ancestors ?? [name],
  );
  const at = new Date(Date.UTC(2024, 0, 1) + (spec.createdSecond ?? spec.n) * 1000).toISOString();
  return {
    id: uuid(spec.n),
    basicClass: spec.basicClass,
    classes: [...new Set(classes)],
    name: spec.name === undefined ? `object ${spec.n}` : spec.name,
    values: spec.values ?? {},
    links: Object.fromEntries(
      Object.entries(spec.links ?? {}).map(([key, targets]) => [key, targets.map((target) => uuid(target))]),
    ),
    createdAt: at,
    modifiedAt: at,
  };
}
