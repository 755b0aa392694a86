import type { ClassDef, FieldDef, Model, RelationDef, RelationEnd } from '@odp/core';
import type { MigrationIssue } from './index.js';
import { validateMigration } from './index.js';

function field(name: string): [string, FieldDef] {
  const def: FieldDef = {
    name,
    type: 'TEXT',
    required: false,
    multiple: false,
    onlyWhenMissing: false,
    hidden: false,
    history: false,
    unique: false,
    declaredOn: 'x',
  };
  return [name, def];
}

function forward(declaredOn: string, name: string, target: string, multiple: boolean, required = false) {
  const relation: RelationDef = {
    name,
    target,
    multiple,
    required,
    cascadeDelete: false,
    inverse: 'x',
    declaredOn,
    key: `${declaredOn}#${name}`,
  };
  const end: RelationEnd = { name, direction: 'forward', relation, otherClass: target, multiple };
  return [name, end] as [string, RelationEnd];
}

function cls(
  name: string,
  options: Partial<Pick<ClassDef, 'abstract' | 'attachableTo' | 'ancestors'>> & {
    fields?: string[];
    relations?: [string, RelationEnd][];
  } = {},
): [string, ClassDef] {
  return [
    name,
    {
      name,
      plural: `${name}s`,
      extends: [],
      ancestors: options.ancestors ?? [name],
      descendants: [name],
      abstract: options.abstract ?? false,
      attachableTo: options.attachableTo ?? null,
      fields: new Map((options.fields ?? []).map(field)),
      relations: new Map(options.relations ?? []),
      scripts: [],
      reports: [],
      system: false,
    },
  ];
}

const classes = new Map([
  cls('crm.organisation', { abstract: true, fields: ['legalName'] }),
  cls('crm.company', {
    ancestors: ['crm.company', 'crm.organisation'],
    fields: ['legalName'],
    relations: [
      forward('crm.company', 'employees', 'crm.person', true),
      forward('crm.company', 'parent', 'crm.company', false),
    ],
  }),
  cls('crm.person', { fields: ['firstName'] }),
  cls('crm.shareholder', { attachableTo: ['crm.person'] }),
  cls('crm.invoice', {
    fields: ['number'],
    relations: [
      forward('crm.invoice', 'client', 'crm.organisation', false, true),
      forward('crm.invoice', 'contact', 'crm.person', false),
      forward('crm.invoice', 'approver', 'crm.person', false),
    ],
  }),
]);
const model = { classes } as unknown as Model;

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
