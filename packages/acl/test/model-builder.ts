/**
 * Builds resolved Models for the access-control tests from compact specs: the classes through the
 * shared builder of `@odp/testkit`, plus access-control definitions in the model-file shape
 * (node paths resolved to relation ends as the model loader does) and roles.
 */
import type { AccessControlDef, AclOperation, Model, RelationEnd, RoleDef } from '@odp/core';
import { buildModel as buildClasses } from '@odp/testkit';
import type { ClassSpec } from '@odp/testkit';

export interface AccessControlSpec {
  readonly name: string;
  readonly anchor?: string;
  readonly grantToUsers?: readonly { id: string; relation: string }[];
  readonly nodes: readonly {
    id: string;
    path?: readonly string[];
    class?: string;
    operations: readonly AclOperation[];
  }[];
}

export interface ModelSpec {
  readonly classes: readonly ClassSpec[];
  readonly accessControl: readonly AccessControlSpec[];
  readonly roles: readonly RoleDef[];
}

export function buildModel(spec: ModelSpec): Model {
  const base = buildClasses(spec.classes);
  const { classes } = base;
  const resolve = (start: string, names: readonly string[]): RelationEnd[] => {
    let current = start;
    return names.map((name) => {
      const end = classes.get(current)?.relations.get(name);
      if (!end) throw new Error(`No relation ${name} on ${current}`);
      current = end.otherClass;
      return end;
    });
  };
  const accessControl: AccessControlDef[] = spec.accessControl.map((definition) => {
    const anchor = definition.anchor;
    if (anchor === undefined) {
      return {
        name: definition.name,
        grantToUsers: [],
        nodes: definition.nodes.map((node) => ({
          id: node.id,
          appliesTo: node.class ?? '',
          operations: node.operations,
        })),
      };
    }
    const grantEnds = resolve(
      anchor,
      (definition.grantToUsers ?? []).map((step) => step.relation),
    );
    return {
      name: definition.name,
      anchor,
      grantToUsers: (definition.grantToUsers ?? []).map((step, index) => ({
        id: step.id,
        relation: grantEnds[index] as RelationEnd,
      })),
      nodes: definition.nodes.map((node) => {
        const steps = resolve(anchor, node.path ?? []);
        return {
          id: node.id,
          path: node.path ?? [],
          steps,
          appliesTo: steps[steps.length - 1]?.otherClass ?? anchor,
          operations: node.operations,
        };
      }),
    };
  });
  return { ...base, accessControl, roles: spec.roles };
}

/** The example CRM's classes, access control and roles (examples/models/crm), without fields. */
export const CRM: ModelSpec = {
  classes: [
    { name: 'crm.organisation', plural: 'organisations', abstract: true },
    {
      name: 'crm.company',
      plural: 'companies',
      extends: ['crm.organisation'],
      relations: [
        { name: 'employees', target: 'crm.person', multiple: true, inverse: 'employers' },
        { name: 'shareholders', target: 'crm.shareholder', multiple: true, inverse: 'shareholdings' },
      ],
    },
    { name: 'crm.person', plural: 'persons' },
    { name: 'crm.shareholder', plural: 'shareholders', attachableTo: ['crm.person', 'crm.company'] },
    {
      name: 'crm.invoice',
      plural: 'invoices',
      relations: [
        { name: 'client', target: 'crm.company', inverse: 'invoices' },
        { name: 'contact', target: 'crm.person', inverse: 'contactForInvoices' },
      ],
    },
    {
      name: 'crm.invoiceLine',
      plural: 'invoiceLines',
      relations: [{ name: 'invoice', target: 'crm.invoice', inverse: 'lines' }],
    },
    {
      name: 'commons.document',
      plural: 'documents',
      relations: [{ name: 'invoices', target: 'crm.invoice', multiple: true, inverse: 'documents' }],
    },
    {
      name: 'crm.note',
      plural: 'notes',
      relations: [{ name: 'persons', target: 'crm.person', multiple: true, inverse: 'notes' }],
    },
  ],
  accessControl: [
    { name: 'allInvoices', nodes: [{ id: 'n-all-invoices', class: 'crm.invoice', operations: ['READ'] }] },
    {
      name: 'companyTeam',
      anchor: 'crm.company',
      grantToUsers: [{ id: 'st-emp', relation: 'employees' }],
      nodes: [
        { id: 'n-company', path: [], operations: ['READ', 'WRITE'] },
        { id: 'n-invoices', path: ['invoices'], operations: ['READ', 'WRITE', 'CREATE', 'DELETE'] },
        { id: 'n-lines', path: ['invoices', 'lines'], operations: ['READ', 'WRITE', 'CREATE', 'DELETE'] },
        { id: 'n-docs', path: ['invoices', 'documents'], operations: ['READ'] },
      ],
    },
    {
      name: 'everything',
      nodes: [
        ['n-all-organisations', 'crm.organisation'],
        ['n-all-persons', 'crm.person'],
        ['n-all-shareholders', 'crm.shareholder'],
        ['n-all-invoices', 'crm.invoice'],
        ['n-all-lines', 'crm.invoiceLine'],
        ['n-all-documents', 'commons.document'],
        ['n-all-notes', 'crm.note'],
      ].map(([id, cls]) => ({
        id: id ?? '',
        class: cls ?? '',
        operations: ['READ', 'WRITE', 'CREATE', 'DELETE'] as const,
      })),
    },
    {
      name: 'ownData',
      anchor: 'crm.person',
      grantToUsers: [],
      nodes: [
        { id: 'n-self', path: [], operations: ['READ', 'WRITE'] },
        { id: 'n-notes', path: ['notes'], operations: ['READ', 'WRITE', 'CREATE'] },
      ],
    },
  ],
  roles: [
    { name: 'admin', grants: [{ definition: 'everything' }] },
    {
      name: 'member',
      grants: [{ definition: 'companyTeam' }, { definition: 'ownData' }, { definition: 'allInvoices' }],
    },
    {
      name: 'viewer',
      grants: [
        { definition: 'companyTeam', operations: ['READ'] },
        { definition: 'ownData', operations: ['READ'] },
      ],
    },
    {
      name: 'accountant',
      grants: [{ definition: 'allInvoices' }, { definition: 'companyTeam', operations: ['READ', 'WRITE'] }],
    },
  ],
};
