import { ValidationError } from '@odp/core';
import type { Filter } from '@odp/core';
import { fixtureModel } from '../test/fixture-model.js';
import { MAX_PAGE, MAX_PAGE_SIZE, parseAggregateQuery, parseDistinctQuery, parseListQuery } from './plans.js';

const model = fixtureModel();
const ID = '0b7e7c3e-3c1a-4a57-9d5e-3f1f8f5f2a11';
const employer = { key: 'crm.person#employer', direction: 'forward' } as const;
const shareholders = { key: 'crm.company#shareholders', direction: 'forward' } as const;
const employees = { key: 'crm.person#employer', direction: 'inverse' } as const;

const filtersOf = (className: string, query: string): readonly Filter[] =>
  parseListQuery(model, className, new URLSearchParams(query)).filters;

describe('parseListQuery: one scenario per row of the List filter table', () => {
  it.each<[string, string, string, Filter[]]>([
    [
      'field=value (equals, text)',
      'crm.company',
      'legalName=Acme',
      [{ kind: 'equals', field: 'legalName', type: 'TEXT', value: 'Acme' }],
    ],
    [
      'field=value (equals, relation by name)',
      'crm.person',
      'employer=Acme',
      [{ kind: 'relationName', relation: employer, match: 'equals', value: 'Acme' }],
    ],
    [
      'relation.name=value',
      'crm.person',
      'employer.name=Acme',
      [{ kind: 'relationName', relation: employer, match: 'equals', value: 'Acme' }],
    ],
    [
      'field_from=value',
      'crm.company',
      'revenue_from=10',
      [{ kind: 'range', field: 'revenue', type: 'CURRENCY', from: 10 }],
    ],
    [
      'field_to=value',
      'crm.company',
      'founded_to=2020-01-01',
      [{ kind: 'range', field: 'founded', type: 'DATE', to: '2020-01-01' }],
    ],
    [
      '_from and _to merge into one range',
      'crm.company',
      'revenue_from=10&revenue_to=20',
      [{ kind: 'range', field: 'revenue', type: 'CURRENCY', from: 10, to: 20 }],
    ],
    [
      'field_startswith=value (value field)',
      'crm.company',
      'legalName_startswith=Ac',
      [{ kind: 'startsWith', field: 'legalName', type: 'TEXT', value: 'Ac' }],
    ],
    [
      'field_startswith=value (relation name)',
      'crm.person',
      'employer_startswith=Ac',
      [{ kind: 'relationName', relation: employer, match: 'startsWith', value: 'Ac' }],
    ],
    [
      'field_notempty',
      'crm.company',
      'email_notempty',
      [{ kind: 'notEmpty', field: 'email', type: 'EMAIL' }],
    ],
    ['field= (empty value)', 'crm.company', 'email=', [{ kind: 'empty', field: 'email', type: 'EMAIL' }]],
    [
      'relation_href=<uuid>',
      'crm.person',
      `employer_href=${ID}`,
      [{ kind: 'relationId', relation: employer, id: ID }],
    ],
    [
      'relation_href=<uri>',
      'crm.person',
      `employer_href=/data/t/companies/${ID}`,
      [{ kind: 'relationId', relation: employer, id: ID }],
    ],
    [
      '_class=name,name keeps every listed class',
      'crm.company',
      '_class=shareholders,organisations',
      [{ kind: 'hasClasses', classes: ['crm.shareholder', 'crm.organisation'] }],
    ],
    ['q=value is not a structured filter', 'crm.company', 'q=acme', []],
  ])('%s', (_row, className, query, expected) => {
    expect(filtersOf(className, query)).toEqual(expected);
  });
});

describe('parseListQuery: filters per operator and data type', () => {
  it.each<[string, string, Filter[]]>([
    [
      'INTEGER equals is a number',
      'employeeCount=12',
      [{ kind: 'equals', field: 'employeeCount', type: 'INTEGER', value: 12 }],
    ],
    [
      'DECIMAL equals is a number',
      'rating=4.5',
      [{ kind: 'equals', field: 'rating', type: 'DECIMAL', value: 4.5 }],
    ],
    [
      'PERCENTAGE range',
      'margin_from=12.5',
      [{ kind: 'range', field: 'margin', type: 'PERCENTAGE', from: 12.5 }],
    ],
    ['BOOLEAN equals', 'active=true', [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }]],
    [
      'DATETIME is normalised to UTC',
      'checkedAt_from=2024-01-01T10:00:00%2B02:00',
      [{ kind: 'range', field: 'checkedAt', type: 'DATETIME', from: '2024-01-01T08:00:00.000Z' }],
    ],
    ['TIME range', 'opensAt_to=09:30', [{ kind: 'range', field: 'opensAt', type: 'TIME', to: '09:30' }]],
    [
      'LIST equals by key',
      'companyType=bv',
      [{ kind: 'equals', field: 'companyType', type: 'LIST', value: 'bv' }],
    ],
    ['IMAGE notempty', 'logo_notempty', [{ kind: 'notEmpty', field: 'logo', type: 'IMAGE' }]],
    ['inherited field', 'legalName_notempty', [{ kind: 'notEmpty', field: 'legalName', type: 'TEXT' }]],
    [
      'inverse relation by name',
      'employees=Smith',
      [{ kind: 'relationName', relation: employees, match: 'equals', value: 'Smith' }],
    ],
    [
      'multi-valued relation by href',
      `shareholders_href=${ID}`,
      [{ kind: 'relationId', relation: shareholders, id: ID }],
    ],
  ])('%s', (_name, query, expected) => {
    expect(filtersOf('crm.company', query)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['unknown field', 'colour=red'],
    ['unknown relation name', 'owner.name=x'],
    ['LONGTEXT (not indexed)', 'notes=x'],
    ['JSON (not indexed)', 'settings_notempty'],
    ['SECRET (not indexed)', 'apiToken=x'],
    ['ARRAY (not indexed)', 'tags=x'],
    ['hidden field', 'internalCode=x'],
    ['range on BOOLEAN (not orderable)', 'active_from=true'],
    ['startswith on a number', 'revenue_startswith=1'],
    ['query-string object', 'legalName[$ne]=x'],
    ['unknown class in _class', '_class=unicorns'],
    ['paging and sort parameters', 'page=1&size=5&sort=legalName'],
    ['empty relation value', 'shareholders='],
  ])('ignores %s', (_name, query) => {
    expect(filtersOf('crm.company', query)).toEqual([]);
  });

  it.each<[string, string]>([
    ['a non-number for INTEGER', 'employeeCount=many'],
    ['a fraction for INTEGER', 'employeeCount=1.5'],
    ['a non-boolean for BOOLEAN', 'active=yes'],
    ['a malformed DATE', 'founded_from=2020-13'],
    ['a malformed DATETIME', 'checkedAt=yesterday'],
  ])('rejects %s with a 400 naming the parameter', (_name, query) => {
    const parameter = query.split('=')[0];
    expect(() => filtersOf('crm.company', query)).toThrow(ValidationError);
    try {
      filtersOf('crm.company', query);
    } catch (error) {
      expect((error as ValidationError).fieldErrors[0]?.field).toBe(parameter);
    }
  });
});

describe('parseListQuery: sort, page and size', () => {
  const plan = (query: string) => parseListQuery(model, 'crm.person', new URLSearchParams(query));

  it.each<[string, string, unknown]>([
    [
      'by value field, ascending by default',
      'sort=lastName',
      { key: { kind: 'field', field: 'lastName', type: 'TEXT' }, direction: 'asc' },
    ],
    [
      'by value field, descending',
      'sort=lastName,desc',
      { key: { kind: 'field', field: 'lastName', type: 'TEXT' }, direction: 'desc' },
    ],
    [
      'by relation name',
      'sort=employer,desc',
      { key: { kind: 'relationName', relation: employer }, direction: 'desc' },
    ],
    ['unknown name keeps the default order', 'sort=colour', undefined],
    [
      'with an explicit ascending direction in any case',
      'sort=lastName,ASC',
      { key: { kind: 'field', field: 'lastName', type: 'TEXT' }, direction: 'asc' },
    ],
  ])('sorts %s', (_name, query, expected) => {
    expect(plan(query).sort).toEqual(expected);
  });

  it.each([
    ['an unknown direction', 'sort=lastName,sideways'],
    ['a direction without a name', 'sort=,desc'],
    ['more than two parts', 'sort=lastName,desc,asc'],
    ['a direction spelled as a name', 'sort=desc,lastName'],
    ['a minus sign for descending (use ,desc)', 'sort=-lastName'],
  ])('refuses %s with a ValidationError naming sort', (_name, query) => {
    try {
      plan(query);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).fieldErrors).toEqual([
        { field: 'sort', message: 'expected name, name,asc or name,desc' },
      ]);
    }
  });

  it.each<[string, string, number, number]>([
    ['defaults', '', 0, 20],
    ['given values', 'page=3&size=50', 3, 50],
    ['negative page and zero size', 'page=-1&size=0', 0, 1],
    ['huge page and size', `page=1000000000&size=1000000`, MAX_PAGE, MAX_PAGE_SIZE],
    ['non-numeric values', 'page=x&size=1.5', 0, 20],
  ])('clamps %s', (_name, query, page, size) => {
    expect(plan(query)).toMatchObject({ page, size });
  });

  it('throws not found for an unknown class', () => {
    expect(() => parseListQuery(model, 'crm.unicorn', new URLSearchParams())).toThrow('Unknown class.');
  });

  it('carries the related scope', () => {
    const related = { anchorId: ID, relation: employees };
    expect(parseListQuery(model, 'crm.person', new URLSearchParams(), related).related).toEqual(related);
  });
});

describe('parseDistinctQuery', () => {
  const distinct = (query: string) => parseDistinctQuery(model, 'crm.person', new URLSearchParams(query));

  it.each<[string, string, unknown]>([
    [
      'a value field by value',
      'distinct=lastName',
      { target: { kind: 'field', field: 'lastName', type: 'TEXT' }, order: 'value' },
    ],
    [
      'a relation by count',
      'distinct=employer&sort=count',
      { target: { kind: 'relation', relation: employer }, order: 'count' },
    ],
    ['by count descending', 'distinct=lastName&sort=count,desc', { order: 'countDesc' }],
    ['by count, direction in any case', 'distinct=lastName&sort=Count,ASC', { order: 'count' }],
    ['by value with an empty sort', 'distinct=lastName&sort=', { order: 'value' }],
  ])('plans %s', (_name, query, expected) => {
    expect(distinct(query)).toMatchObject(expected as object);
  });

  it('narrows by the other filters and never treats distinct as a filter', () => {
    expect(distinct('distinct=lastName&employer=Acme').filters).toEqual([
      { kind: 'relationName', relation: employer, match: 'equals', value: 'Acme' },
    ]);
  });

  it.each(['sort=lastName', 'sort=count,sideways', 'sort=-count', 'sort=count,desc,x'])(
    'rejects %p, a sort that is not by count, with a 400 naming sort',
    (sort) => {
      expect(() => distinct(`distinct=lastName&${sort}`)).toThrow(
        expect.objectContaining({
          fieldErrors: [{ field: 'sort', message: 'expected count, count,asc or count,desc' }],
        }),
      );
    },
  );

  it.each(['', 'distinct=colour', 'distinct=notes'])('rejects target %p with 400', (query) => {
    expect(() => parseDistinctQuery(model, 'crm.company', new URLSearchParams(query))).toThrow(
      ValidationError,
    );
  });
});

describe('parseAggregateQuery', () => {
  it('keeps numeric fields only and drops the rest silently', () => {
    const plan = parseAggregateQuery(
      model,
      'crm.company',
      new URLSearchParams(
        'sum=revenue,legalName,colour&avg=rating&count=employeeCount,margin&active=true&page=2',
      ),
    );
    expect(plan).toMatchObject({
      sum: ['revenue'],
      avg: ['rating'],
      count: ['employeeCount', 'margin'],
      filters: [{ kind: 'equals', field: 'active', type: 'BOOLEAN', value: true }],
    });
  });

  it('plans only the total when no function is asked for', () => {
    expect(parseAggregateQuery(model, 'crm.company', new URLSearchParams())).toMatchObject({
      sum: [],
      avg: [],
      count: [],
    });
  });
});
