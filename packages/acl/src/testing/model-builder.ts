/**
 * Builds resolved Models for the access-control tests from compact specs (classes with forward
 * relations, access-control definitions in the model-file shape, roles), resolving inheritance,
 * inverse sides and node paths as the model loader does.
 */
import type {
  AccessControlDef,
  AclOperation,
  ClassDef,
  Model,
  RelationDef,
  RelationEnd,
  RoleDef,
} from '@odp/core';

export interface ClassSpec {
  readonly name: string;
  readonly plural: string;
  readonly extends?: readonly string[];
  readonly abstract?: boolean;
  readonly attachableTo?: readonly string[];
  readonly relations?: readonly { name: string; target: string; multiple?: boolean; inverse: string }[];
}

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
  const specs = new Map(spec.classes.map((cls) => [cls.name, cls]));
  const ancestors = (name: string): string[] => [
    ...new Set([name, ...(specs.get(name)?.extends ?? []).flatMap(ancestors)]),
  ];
  const relations: RelationDef[] = spec.classes.flatMap((cls) =>
    (cls.relations ?? []).map((relation) => ({
      name: relation.name,
      target: relation.target,
      multiple: relation.multiple ?? false,
      required: false,
      cascadeDelete: false,
      inverse: relation.inverse,
      declaredOn: cls.name,
      key: `${cls.name}#${relation.name}`,
    })),
  );
  const classes = new Map<string, ClassDef>();
  for (const cls of spec.classes) {
    const own = ancestors(cls.name);
    const ends = new Map<string, RelationEnd>();
    for (const relation of relations) {
      if (own.includes(relation.declaredOn)) {
        ends.set(relation.name, {
          name: relation.name,
          direction: 'forward',
          relation,
          otherClass: relation.target,
          multiple: relation.multiple,
        });
      }
      if (own.includes(relation.target)) {
        ends.set(relation.inverse, {
          name: relation.inverse,
          direction: 'inverse',
          relation,
          otherClass: relation.declaredOn,
          multiple: true,
        });
      }
    }
    classes.set(cls.name, {
      name: cls.name,
      plural: cls.plural,
      extends: cls.extends ?? [],
      ancestors: own,
      descendants: spec.classes
        .filter((other) => ancestors(other.name).includes(cls.name))
        .map((other) => other.name),
      abstract: cls.abstract ?? false,
      attachableTo: cls.attachableTo ?? null,
      fields: new Map(),
      relations: ends,
      scripts: [],
      reports: [],
      system: false,
    });
  }
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
  return {
    classes,
    byPlural: new Map([...classes.values()].map((cls) => [cls.plural, cls])),
    lists: new Map(),
    accessControl,
    roles: spec.roles,
    settings: {},
    defaultData: [],
    templates: new Map(),
  };
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
