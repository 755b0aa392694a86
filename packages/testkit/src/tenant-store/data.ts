/**
 * The data set and the plan builders the TenantStore contract's concerns share: companies 1-5 and
 * subsidiary 9, persons 20-23, invoices 30-33 of the contract model; filters, sorts and access
 * filters in the shape the query engine plans them.
 */
import type { AccessFilter, DataType, Filter, NewJob, RelationRef, Selection, Sort } from '@odp/core';
import type { ObjectSpec } from '../fixture.js';
import { REL, uuid } from '../fixture.js';

export const ALL: AccessFilter = { kind: 'all' };
export const COMPANY = 'ct.company';

/** Object numbers of objects (the last 12 digits of the contract's UUIDs). */

export function nums(objects: readonly { id: string }[]): number[] {
  return objects.map((object) => Number(object.id.slice(-12)));
}

export const forward = (key: string): RelationRef => ({ key, direction: 'forward' });
export const inverse = (key: string): RelationRef => ({ key, direction: 'inverse' });

/** The shared data set: companies 1-5 and subsidiary 9, persons 20-23, invoices 30-33. */

export const DATA: readonly ObjectSpec[] = [
  {
    n: 3,
    basicClass: COMPANY,
    name: 'Initech',
    gained: ['ct.shareholder'],
    values: {
      legalName: 'Initech',
      revenue: 30,
      employees: 100,
      founded: '2010-01-01',
      active: true,
      kind: 'bv',
      share: 5,
    },
  },
  {
    n: 20,
    basicClass: 'ct.person',
    name: 'Ann Smith',
    gained: ['ct.shareholder'],
    values: { lastName: 'Smith', share: 50 },
    links: { [REL.employer]: [1] },
  },
  {
    n: 1,
    basicClass: COMPANY,
    name: 'Acme',
    values: {
      legalName: 'Acme BV',
      revenue: 100,
      employees: 9,
      rating: 4.5,
      margin: 12.5,
      founded: '2001-05-01',
      checkedAt: '2024-03-01T10:00:00+02:00',
      opensAt: '08:30',
      active: true,
      email: 'info@acme.test',
      kind: 'bv',
      tags: ['red', 'blue'],
      notes: 'long notes',
    },
    links: { [REL.shareholders]: [20, 3] },
  },
  {
    n: 2,
    basicClass: COMPANY,
    name: 'Globex',
    values: {
      legalName: 'Globex NV',
      revenue: 2500,
      employees: 10,
      rating: 3,
      founded: '1999-12-31',
      checkedAt: '2024-03-01T09:00:00Z',
      opensAt: '09:00',
      active: false,
      email: 'hi@globex.test',
      kind: 'nv',
      tags: ['blue'],
    },
  },
  {
    n: 4,
    basicClass: COMPANY,
    name: 'Umbrella',
    values: { legalName: 'umbrella corp', employees: 2, active: true },
  },
  { n: 5, basicClass: COMPANY, name: 'Hooli', values: { legalName: 'Hooli', revenue: 100, employees: 50 } },
  {
    n: 9,
    basicClass: 'ct.subsidiary',
    name: 'Acme Sub',
    values: { legalName: 'Acme Subsidiary', revenue: 5, employees: 1, parentCode: 'A1', active: false },
  },
  {
    n: 21,
    basicClass: 'ct.person',
    name: 'Bob Jones',
    values: { lastName: 'Jones' },
    links: { [REL.employer]: [2] },
  },
  {
    n: 22,
    basicClass: 'ct.person',
    name: 'Cy Smith',
    values: { lastName: 'Smith' },
    links: { [REL.employer]: [1] },
  },
  { n: 23, basicClass: 'ct.person', name: 'Di No', values: { lastName: 'No' } },
  { n: 30, basicClass: 'ct.invoice', values: { amount: 10, number: 'I-30' }, links: { [REL.client]: [1] } },
  { n: 31, basicClass: 'ct.invoice', values: { amount: 20, number: 'I-31' }, links: { [REL.client]: [2] } },
  { n: 32, basicClass: 'ct.invoice', values: { amount: 5, number: 'I-32' }, links: { [REL.client]: [1] } },
  { n: 33, basicClass: 'ct.invoice', values: { amount: 7, number: 'I-33' } },
];

/** An access filter protecting `protectedClasses`, of a reader who holds `acIds`. */

export const acl = (protectedClasses: string[], acIds: string[]): AccessFilter => ({
  kind: 'acl',
  protectedClasses,
  acIds,
});

/** A selection of a class narrowed by `filters`. */

export const selection = (className: string, filters: Filter[] = []): Selection => ({ className, filters });

export function outboxJob(id: string): NewJob {
  return {
    id,
    tenantId: 'contract-tenant',
    kind: 'gateway',
    objectId: uuid(80),
    payload: { script: 'notify', parameters: { url: 'https://example.test/', note: 'ü' } },
    createdAt: '2024-01-01T00:00:00.000Z',
  };
}

export function textEquals(field: string, value: string): Filter {
  return { kind: 'equals', field, type: 'TEXT', value };
}

export function range(
  field: string,
  type: 'INTEGER' | 'DATE' | 'DATETIME' | 'TIME' | 'PERCENTAGE' | 'CURRENCY',
  from?: string | number,
  to?: string | number,
): Filter {
  return {
    kind: 'range',
    field,
    type,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

export function fieldSort(field: string, type: DataType, direction: 'asc' | 'desc'): Sort {
  return { key: { kind: 'field', field, type }, direction };
}
