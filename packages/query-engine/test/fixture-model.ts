/**
 * A small hand-built CRM model for the query engine's unit tests: organisations and companies
 * (with every indexed and non-indexed data type), persons employed by companies, invoices with a
 * required client, and the role class shareholder gained through `company.shareholders`.
 */
import type { Model } from '@odp/core';
import { buildModel } from '@odp/testkit';
import type { ClassSpec } from '@odp/testkit';

const SPECS: readonly ClassSpec[] = [
  { name: 'crm.organisation', plural: 'organisations', abstract: true, fields: [['legalName', 'TEXT']] },
  {
    name: 'crm.company',
    plural: 'companies',
    extends: ['crm.organisation'],
    fields: [
      ['revenue', 'CURRENCY'],
      ['employeeCount', 'INTEGER'],
      ['margin', 'PERCENTAGE'],
      ['rating', 'DECIMAL'],
      ['founded', 'DATE'],
      ['checkedAt', 'DATETIME'],
      ['opensAt', 'TIME'],
      ['active', 'BOOLEAN'],
      ['email', 'EMAIL'],
      ['companyType', 'LIST', { list: 'crm.companyType' }],
      ['notes', 'LONGTEXT'],
      ['settings', 'JSON'],
      ['apiToken', 'SECRET'],
      ['tags', 'ARRAY'],
      ['logo', 'IMAGE'],
      ['internalCode', 'TEXT', { hidden: true }],
    ],
    relations: [{ name: 'shareholders', target: 'crm.shareholder', multiple: true, inverse: 'holdings' }],
  },
  {
    name: 'crm.person',
    plural: 'persons',
    fields: [['lastName', 'TEXT']],
    relations: [{ name: 'employer', target: 'crm.company', multiple: false, inverse: 'employees' }],
  },
  { name: 'crm.shareholder', plural: 'shareholders', attachableTo: ['crm.person', 'crm.company'] },
  {
    name: 'crm.invoice',
    plural: 'invoices',
    fields: [['amount', 'CURRENCY']],
    relations: [{ name: 'client', target: 'crm.company', multiple: false, inverse: 'invoices' }],
  },
  { name: 'system.logEntry', plural: 'logEntries', fields: [['category', 'TEXT']] },
];

export function fixtureModel(): Model {
  return buildModel(SPECS, [
    {
      name: 'crm.companyType',
      values: [
        { key: 'bv', label: 'Private' },
        { key: 'nv', label: 'Public' },
      ],
    },
  ]);
}
