/**
 * A small hand-built CRM model for the query engine's unit tests: organisations and companies
 * (with every indexed and non-indexed data type), persons employed by companies, invoices with a
 * required client, and the role class shareholder gained through `company.shareholders`.
 */
import type { ClassDef, DataType, FieldDef, Model, RelationDef, RelationEnd } from '@odp/core';

interface ClassSpec {
  name: string;
  plural: string;
  extends?: string[];
  abstract?: boolean;
  attachableTo?: string[];
  fields?: [string, DataType, Partial<FieldDef>?][];
  relations?: Omit<RelationDef, 'declaredOn' | 'key' | 'required' | 'cascadeDelete'>[];
}

const SPECS: ClassSpec[] = [
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

function field(declaredOn: string, [name, type, extra]: [string, DataType, Partial<FieldDef>?]): FieldDef {
  return {
    name,
    type,
    required: false,
    multiple: false,
    onlyWhenMissing: false,
    hidden: false,
    history: false,
    unique: false,
    declaredOn,
    ...extra,
  };
}

export function fixtureModel(): Model {
  const ancestors = (name: string): string[] => {
    const spec = SPECS.find((candidate) => candidate.name === name);
    return [name, ...(spec?.extends ?? []).flatMap(ancestors)];
  };
  const relations: RelationDef[] = SPECS.flatMap((spec) =>
    (spec.relations ?? []).map((relation) => ({
      ...relation,
      required: false,
      cascadeDelete: false,
      declaredOn: spec.name,
      key: `${spec.name}#${relation.name}`,
    })),
  );
  const classes = new Map<string, ClassDef>();
  for (const spec of SPECS) {
    const lineage = ancestors(spec.name);
    const fields = new Map<string, FieldDef>();
    const ends = new Map<string, RelationEnd>();
    for (const ancestor of lineage) {
      const ancestorSpec = SPECS.find((candidate) => candidate.name === ancestor);
      for (const entry of ancestorSpec?.fields ?? []) fields.set(entry[0], field(ancestor, entry));
    }
    for (const relation of relations) {
      if (lineage.includes(relation.declaredOn)) {
        ends.set(relation.name, {
          name: relation.name,
          direction: 'forward',
          relation,
          otherClass: relation.target,
          multiple: relation.multiple,
        });
      }
      if (lineage.includes(relation.target)) {
        ends.set(relation.inverse, {
          name: relation.inverse,
          direction: 'inverse',
          relation,
          otherClass: relation.declaredOn,
          multiple: true,
        });
      }
    }
    classes.set(spec.name, {
      name: spec.name,
      plural: spec.plural,
      extends: spec.extends ?? [],
      ancestors: lineage,
      descendants: SPECS.filter((candidate) => ancestors(candidate.name).includes(spec.name)).map(
        (c) => c.name,
      ),
      abstract: spec.abstract ?? false,
      attachableTo: spec.attachableTo ?? null,
      fields,
      relations: ends,
      scripts: [],
      reports: [],
      system: spec.name.startsWith('system.'),
    });
  }
  return {
    classes,
    byPlural: new Map([...classes.values()].map((cls) => [cls.plural, cls])),
    lists: new Map([
      [
        'crm.companyType',
        {
          name: 'crm.companyType',
          values: [
            { key: 'bv', label: 'Private' },
            { key: 'nv', label: 'Public' },
          ],
        },
      ],
    ]),
    accessControl: [],
    roles: [],
    settings: {},
    defaultData: [],
    templates: new Map(),
  };
}
