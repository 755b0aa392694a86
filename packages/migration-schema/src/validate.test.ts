import { buildModel } from '@odp/testkit';
import type { MigrationIssue } from './index.js';
import { validateMigration } from './index.js';

const model = buildModel([
  { name: 'crm.organisation', plural: 'organisations', abstract: true, fields: [['legalName', 'TEXT']] },
  {
    name: 'crm.company',
    plural: 'companies',
    extends: ['crm.organisation'],
    relations: [
      { name: 'employees', target: 'crm.person', multiple: true, inverse: 'employers' },
      { name: 'parent', target: 'crm.company', inverse: 'subsidiaries' },
    ],
  },
  { name: 'crm.person', plural: 'persons', fields: [['firstName', 'TEXT']] },
  { name: 'crm.shareholder', plural: 'shareholders', attachableTo: ['crm.person'] },
  {
    name: 'crm.invoice',
    plural: 'invoices',
    fields: [['number', 'TEXT']],
    relations: [
      { name: 'client', target: 'crm.organisation', required: true, inverse: 'invoices' },
      { name: 'contact', target: 'crm.person', inverse: 'contactForInvoices' },
      { name: 'approver', target: 'crm.person', inverse: 'approvedInvoices' },
    ],
  },
]);

const companies = {
  source: 'C',
  target: 'crm.company',
  fields: [{ source: 'N', target: 'legalName' }],
  relations: [],
};
const persons = { source: 'P', target: 'crm.person', fields: [], relations: [] };

function definition(steps: unknown[], extra: Record<string, unknown> = {}) {
  return { migrationType: 'legacy', parameters: [{ name: 'url' }], steps, ...extra };
}

describe('validateMigration', () => {
  it.each<[string, unknown, MigrationIssue[]]>([
    ['a valid definition', definition([companies, persons]), []],
    ['not an object', 42, [{ severity: 'ERROR', path: '', message: 'Must be object' }]],
    [
      'missing migrationType',
      { steps: [] },
      [{ severity: 'ERROR', path: '', message: "Missing required property 'migrationType'" }],
    ],
    [
      'an unknown property',
      definition([], { extra: 1 }),
      [{ severity: 'ERROR', path: '/extra', message: "Unknown property 'extra'" }],
    ],
    [
      'a parameter without name',
      { migrationType: 'x', parameters: [{}], steps: [] },
      [{ severity: 'ERROR', path: '/parameters/0', message: "Missing required property 'name'" }],
    ],
    [
      'a malformed class name',
      definition([{ ...persons, target: 'person' }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/target',
          message: 'Must match pattern "^[a-z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*$"',
        },
      ],
    ],
    [
      'an unknown class',
      definition([{ ...persons, target: 'crm.nobody' }]),
      [{ severity: 'ERROR', path: '/steps/0/target', message: "Unknown class 'crm.nobody'" }],
    ],
    [
      'an abstract target',
      definition([{ ...persons, target: 'crm.organisation' }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/target',
          message: 'Class crm.organisation is abstract; no object is created as it',
        },
      ],
    ],
    [
      'a role class target',
      definition([{ ...persons, target: 'crm.shareholder' }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/target',
          message: 'Class crm.shareholder is a role class; no object is created as it',
        },
      ],
    ],
    [
      'an unknown field',
      definition([{ ...persons, fields: [{ source: 'x', target: 'nickname' }] }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/fields/0/target',
          message: "Class crm.person has no field 'nickname'",
        },
      ],
    ],
    [
      'a relation to the same step not deferred',
      definition([{ ...companies, relations: [{ source: 'P', target: 'crm.company' }] }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/relations/0/deferred',
          message:
            'Relation to crm.company must be deferred: rows of one step are created in arbitrary order',
        },
      ],
    ],
    [
      'a relation to a later step not deferred',
      definition([
        { ...companies, relations: [{ source: 'E', target: 'crm.person', multiple: true }] },
        persons,
      ]),
      [
        {
          severity: 'ERROR',
          path: '/steps/0/relations/0/deferred',
          message: 'Relation to crm.person must be deferred: its objects are created in a later step (1)',
        },
      ],
    ],
    [
      'a deferred relation to a later step',
      definition([
        { ...companies, relations: [{ source: 'E', target: 'crm.person', multiple: true, deferred: true }] },
        persons,
      ]),
      [],
    ],
    [
      'a relation to an earlier step (subclass of the relation target)',
      definition([
        companies,
        {
          source: 'I',
          target: 'crm.invoice',
          fields: [],
          relations: [{ source: 'C', target: 'crm.company' }],
        },
      ]),
      [],
    ],
    [
      'a required relation deferred',
      definition([
        companies,
        {
          source: 'I',
          target: 'crm.invoice',
          fields: [],
          relations: [{ source: 'C', target: 'crm.company', deferred: true }],
        },
      ]),
      [
        {
          severity: 'ERROR',
          path: '/steps/1/relations/0/deferred',
          message:
            "Relation 'client' is required, so it cannot be deferred: the create would be refused without it",
        },
      ],
    ],
    [
      'multiple not matching the relation',
      definition([persons, { ...companies, relations: [{ source: 'E', target: 'crm.person' }] }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/1/relations/0/multiple',
          message: "Relation 'employees' is multi-valued; multiple must be true",
        },
      ],
    ],
    [
      'no relation to the target',
      definition([companies, { ...persons, relations: [{ source: 'C', target: 'crm.company' }] }]),
      [
        {
          severity: 'ERROR',
          path: '/steps/1/relations/0/target',
          message: 'Class crm.person has no relation to crm.company',
        },
      ],
    ],
    [
      'an ambiguous relation',
      definition([
        persons,
        {
          source: 'I',
          target: 'crm.invoice',
          fields: [],
          relations: [{ source: 'P', target: 'crm.person' }],
        },
      ]),
      [
        {
          severity: 'ERROR',
          path: '/steps/1/relations/0/target',
          message:
            'Class crm.invoice has several relations to crm.person (contact, approver); the mapping is ambiguous',
        },
      ],
    ],
    [
      'an mnRelation over a multi-valued relation',
      definition([companies, persons], {
        mnRelations: [{ sourceFrom: 'a', targetFrom: 'crm.person', sourceTo: 'b', targetTo: 'crm.company' }],
      }),
      [],
    ],
    [
      'an mnRelation without a multi-valued relation',
      definition([companies, persons], {
        mnRelations: [{ sourceFrom: 'a', targetFrom: 'crm.invoice', sourceTo: 'b', targetTo: 'crm.person' }],
      }),
      [
        {
          severity: 'ERROR',
          path: '/mnRelations/0',
          message: 'No multi-valued relation connects crm.invoice and crm.person',
        },
      ],
    ],
    [
      'an mnRelation naming an unknown class',
      definition([companies], {
        mnRelations: [{ sourceFrom: 'a', targetFrom: 'crm.x', sourceTo: 'b', targetTo: 'crm.person' }],
      }),
      [{ severity: 'ERROR', path: '/mnRelations/0/targetFrom', message: "Unknown class 'crm.x'" }],
    ],
  ])('%s', (_name, input, issues) => {
    expect(validateMigration(input, model)).toEqual(issues);
  });

  it('checks the deferred rules without a model by class name', () => {
    expect(
      validateMigration(definition([{ ...persons, relations: [{ source: 'M', target: 'crm.person' }] }])),
    ).toEqual([
      {
        severity: 'ERROR',
        path: '/steps/0/relations/0/deferred',
        message: 'Relation to crm.person must be deferred: rows of one step are created in arbitrary order',
      },
    ]);
  });
});
