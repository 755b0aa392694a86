import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelIssue } from '@odp/core';
import { ValidationError } from '@odp/core';
import type { RepositoryContent } from './index.js';
import { buildModel, loadModelRepository } from './index.js';

type Files = Record<string, unknown>;

const BASE: Files = {
  'classes/a/org.json': {
    version: 2,
    kind: 'class',
    class: 'a.org',
    abstract: true,
    nameFormula: 'name',
    fields: [{ name: 'name', type: 'TEXT', required: true }],
  },
  'classes/a/company.json': {
    version: 2,
    kind: 'class',
    class: 'a.company',
    extends: ['a.org'],
    fields: [{ name: 'status', type: 'LIST', list: 'a.status', required: true, default: 'open' }],
    relations: [{ name: 'employees', target: 'a.person', multiple: true, inverse: 'employers' }],
  },
  'classes/a/person.json': {
    version: 2,
    kind: 'class',
    class: 'a.person',
    fields: [{ name: 'firstName', type: 'TEXT' }],
  },
  'lists/status.json': {
    version: 2,
    kind: 'list',
    list: 'a.status',
    values: [
      { key: 'open', label: 'Open' },
      { key: 'closed', label: 'Closed' },
    ],
  },
  'templates/letter.hbs': 'Dear {{name}}',
};

/** The base repository with `changes` applied (a value of undefined removes a file). */
function repository(changes: Files): RepositoryContent {
  const files = { ...BASE, ...changes };
  const entries = Object.entries(files)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([p, v]) => ({ path: p, text: typeof v === 'string' ? v : JSON.stringify(v) }));
  return {
    modelFiles: entries.filter((f) => !f.path.startsWith('data/') && !f.path.startsWith('templates/')),
    dataFiles: entries.filter((f) => f.path.startsWith('data/')),
    templateFiles: entries.filter((f) => f.path.startsWith('templates/')),
    truncated: false,
  };
}

const cls = (name: string, more: Record<string, unknown> = {}) => ({
  version: 2,
  kind: 'class',
  class: name,
  ...more,
});
/** An expected issue; a RegExp message matches messages that embed engine text (JSON.parse). */
type Expected = Omit<ModelIssue, 'message'> & { readonly message: string | RegExp };
const E = (file: string, p: string, message: string | RegExp): Expected => ({
  severity: 'ERROR',
  file,
  path: p,
  message,
});
const W = (file: string, p: string, message: string): ModelIssue => ({
  severity: 'WARNING',
  file,
  path: p,
  message,
});
const I = (file: string, p: string, message: string): ModelIssue => ({
  severity: 'INFO',
  file,
  path: p,
  message,
});

const C = 'classes/a/company.json';
const P = 'classes/a/person.json';
const X = 'classes/x.json';
const ACL = 'accessControl/team.json';
const ROLES = 'roles.json';
const DATA = 'data/base.json';
const company = BASE[C] as Record<string, unknown>;
const companyWith = (more: Record<string, unknown>) => ({ [C]: { ...company, ...more } });
const field = (f: Record<string, unknown>) => companyWith({ fields: [f] });
const script = (s: Record<string, unknown>) => companyWith({ scripts: [s] });
/** A Webhook script on company creation with these parameters. */
const webhook = (parameters: unknown[]) =>
  script({ name: 'w', type: 'CONSUMER_GATEWAY', gateway: 'Webhook', trigger: ['CREATE'], parameters });
const anchored = (more: Record<string, unknown>) => ({
  [ACL]: {
    version: 2,
    kind: 'accessControl',
    name: 'team',
    anchor: 'a.company',
    grantToUsers: [{ id: 's1', relation: 'employees' }],
    nodes: [{ id: 'n1', path: [], operations: ['READ'] }],
    ...more,
  },
});
const data = (objects: unknown[]) => ({ [DATA]: { version: 2, kind: 'data', objects } });
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function withRegexps(expected: Expected[]): unknown[] {
  return expected.map((i) =>
    i.message instanceof RegExp ? { ...i, message: expect.stringMatching(i.message) } : i,
  );
}

describe('loading a model repository: one row per check, exact issues', () => {
  it.each<[string, Files, Expected[]]>([
    ['the base repository', {}, []],
    // Envelope and JSON
    ['invalid JSON', { [X]: '{"version": 2,' }, [E(X, '', /^Invalid JSON: /)]],
    ['a JSON array', { [X]: '[]' }, [E(X, '', "A model file is a JSON object with 'version' and 'kind'")]],
    ['no version', { [X]: { kind: 'class' } }, [E(X, '', "Missing required property 'version'")]],
    ['a string version', { [X]: { version: '2', kind: 'list' } }, [E(X, '/version', 'Must be an integer')]],
    [
      'format 3',
      { [X]: cls('a.x', { version: 3 }) },
      [E(X, '/version', 'Definition format 3 is not supported; this platform reads formats 1 and 2')],
    ],
    ['no kind', { [X]: { version: 2 } }, [E(X, '', "Missing required property 'kind'")]],
    [
      'an unknown kind',
      { [X]: { version: 2, kind: 'widget' } },
      [
        E(
          X,
          '/kind',
          'Unknown kind "widget"; expected one of class, list, accessControl, roles, tenant, migration',
        ),
      ],
    ],
    [
      'data outside data/',
      { [X]: { version: 2, kind: 'data', objects: [] } },
      [E(X, '/kind', 'Default data files belong under data/')],
    ],
    [
      'deeply nested JSON',
      {
        [X]: `{"version": 2, "kind": "class", "class": "a.x", "deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      },
      [E(X, '', 'JSON nests deeper than 64 levels')],
    ],
    // Class schema
    [
      'an unknown class property',
      { [X]: cls('a.x', { colour: 'red' }) },
      [E(X, '/colour', "Unknown property 'colour'")],
    ],
    [
      'an unqualified class name',
      { [X]: cls('x') },
      [E(X, '/class', 'Must match pattern "^[a-z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*$"')],
    ],
    [
      'a field name with underscore',
      field({ name: '_x', type: 'TEXT' }),
      [E(C, '/fields/0/name', 'Must match pattern "^[a-z][A-Za-z0-9]*$"')],
    ],
    [
      'an unknown data type',
      field({ name: 'x', type: 'STRING' }),
      [E(C, '/fields/0/type', /^Must be one of "TEXT", "TEXTBLOCK", .*"IMAGE"$/)],
    ],
    ['a missing field type', field({ name: 'x' }), [E(C, '/fields/0', "Missing required property 'type'")]],
    // Class references and names
    [
      'a duplicate class name',
      { 'classes/z.json': cls('a.person') },
      [E('classes/z.json', '/class', 'Class a.person is already defined in classes/a/person.json')],
    ],
    [
      'the system package',
      { [X]: cls('system.thing') },
      [E(X, '/class', "The package 'system' is reserved for built-in classes")],
    ],
    [
      'an unknown parent',
      { [X]: cls('a.x', { extends: ['a.nope'] }) },
      [E(X, '/extends/0', "Unknown class 'a.nope'")],
    ],
    [
      'a cycle in extends',
      {
        'classes/x.json': cls('a.x', { extends: ['a.y'] }),
        'classes/y.json': cls('a.y', { extends: ['a.person', 'a.x'] }),
      },
      [
        E('classes/x.json', '/extends/0', 'Cycle in extends: a.x -> a.y -> a.x'),
        E('classes/y.json', '/extends/1', 'Cycle in extends: a.x -> a.y -> a.x'),
      ],
    ],
    [
      'a class extending itself',
      { [X]: cls('a.x', { extends: ['a.x'] }) },
      [E(X, '/extends/0', 'Cycle in extends: a.x -> a.x')],
    ],
    [
      'an unknown attachableTo class',
      { [X]: cls('a.role', { attachableTo: ['a.nope'] }) },
      [E(X, '/attachableTo/0', "Unknown class 'a.nope'")],
    ],
    [
      'a plural collision',
      { [X]: cls('a.people', { plural: 'persons' }) },
      [E(X, '/plural', "Class a.people has the plural 'persons' of class a.person")],
    ],
    [
      'a derived plural collision',
      { 'classes/b.json': cls('b.person') },
      [E('classes/b.json', '/class', "Class b.person has the plural 'persons' of class a.person")],
    ],
    ['the reserved plural items', { [X]: cls('a.item') }, [E(X, '/class', "The plural 'items' is reserved")]],
    // Fields
    [
      'a duplicate field',
      companyWith({
        fields: [
          { name: 'x', type: 'TEXT' },
          { name: 'x', type: 'TEXT' },
        ],
      }),
      [E(C, '/fields/1/name', "Field 'x' is defined twice")],
    ],
    [
      'a LIST field without list',
      field({ name: 'x', type: 'LIST' }),
      [E(C, '/fields/0', "LIST field 'x' needs a list")],
    ],
    [
      'an unknown list',
      field({ name: 'x', type: 'LIST', list: 'a.nope' }),
      [E(C, '/fields/0/list', "Unknown list 'a.nope'")],
    ],
    [
      'a built-in list',
      field({ name: 'x', type: 'LIST', list: 'system.profileRole', required: true, default: 'viewer' }),
      [],
    ],
    [
      'a list on a TEXT field',
      field({ name: 'x', type: 'TEXT', list: 'a.status' }),
      [W(C, '/fields/0/list', "'list' has no effect on a TEXT field")],
    ],
    [
      'a default that is not a list key',
      field({ name: 'x', type: 'LIST', list: 'a.status', required: true, default: 'gone' }),
      [E(C, '/fields/0/default', "The default 'gone' is not a key of list a.status")],
    ],
    [
      'a text default on a number',
      field({ name: 'x', type: 'INTEGER', required: true, default: 'one' }),
      [E(C, '/fields/0/default', 'The default must be a number')],
    ],
    [
      'a default on a FILE field',
      field({ name: 'x', type: 'FILE', required: true, default: 'a' }),
      [E(C, '/fields/0/default', 'The default a FILE field cannot have a default')],
    ],
    [
      'a formula default',
      field({ name: 'x', type: 'DATE', required: true, default: { formula: 'today()' } }),
      [],
    ],
    [
      'a default on a field that is not required (it would never apply)',
      field({ name: 'x', type: 'INTEGER', default: 0 }),
      [
        W(
          C,
          '/fields/0/default',
          "The default of 'x' never applies: defaults fill required fields left empty, and the field is not required",
        ),
      ],
    ],
    [
      'a unique JSON field',
      field({ name: 'x', type: 'JSON', unique: true }),
      [E(C, '/fields/0/unique', 'A JSON field cannot be unique: the type is not indexed')],
    ],
    [
      'onlyWhenMissing without formula',
      field({ name: 'x', type: 'TEXT', onlyWhenMissing: true }),
      [W(C, '/fields/0/onlyWhenMissing', "'onlyWhenMissing' has no effect without a formula")],
    ],
    [
      'a redefined inherited field',
      field({ name: 'name', type: 'INTEGER' }),
      [E(C, '/fields/0/type', "Field 'name' redefines the TEXT field of a.org as INTEGER")],
    ],
    // Formulas
    [
      'a formula that does not parse',
      field({ name: 'x', type: 'TEXT', formula: 'name +' }),
      [E(C, '/fields/0/formula', 'Formula does not parse: Unexpected end of formula (at character 6)')],
    ],
    [
      'a formula naming an unknown field',
      field({ name: 'x', type: 'TEXT', formula: 'upper(nme)' }),
      [E(C, '/fields/0/formula', "Unknown field or relation 'nme' on class a.company")],
    ],
    [
      'a formula through a relation',
      field({ name: 'x', type: 'INTEGER', formula: 'count(employees.firstName)' }),
      [],
    ],
    [
      'a formula through a relation to an unknown field',
      field({ name: 'x', type: 'TEXT', formula: 'employees.lastName' }),
      [E(C, '/fields/0/formula', "Unknown field or relation 'lastName' on class a.person")],
    ],
    [
      'a formula calling an unknown function',
      field({ name: 'x', type: 'TEXT', formula: 'eval(name)' }),
      [E(C, '/fields/0/formula', "Unknown function 'eval'")],
    ],
    [
      'a 100 KB formula',
      field({ name: 'x', type: 'TEXT', formula: 'a'.repeat(100_000) }),
      [
        E(
          C,
          '/fields/0/formula',
          `Formula does not parse: Formula is longer than 10000 characters (100000) (at character 10000)`,
        ),
      ],
    ],
    [
      '1,000 nested parentheses',
      field({ name: 'x', type: 'TEXT', formula: `${'('.repeat(1000)}1${')'.repeat(1000)}` }),
      [
        E(
          C,
          '/fields/0/formula',
          'Formula does not parse: Formula nests deeper than 64 levels (at character 65)',
        ),
      ],
    ],
    [
      'a default formula naming an unknown field',
      field({ name: 'x', type: 'TEXT', required: true, default: { formula: 'nope' } }),
      [E(C, '/fields/0/default/formula', "Unknown field or relation 'nope' on class a.company")],
    ],
    [
      'an unknown field in nameFormula',
      companyWith({ nameFormula: 'title' }),
      [E(C, '/nameFormula', "Unknown field or relation 'title' on class a.company")],
    ],
    // Relations
    [
      'an unknown relation target',
      companyWith({ relations: [{ name: 'owner', target: 'a.nope' }] }),
      [E(C, '/relations/0/target', "Unknown class 'a.nope'")],
    ],
    [
      'a relation named like a field',
      companyWith({ relations: [{ name: 'status', target: 'a.person' }] }),
      [E(C, '/relations/0/name', "Relation 'status' collides with field 'status' on class a.company")],
    ],
    [
      'two relations with the same default inverse',
      companyWith({
        relations: [
          { name: 'owner', target: 'a.person' },
          { name: 'contact', target: 'a.person' },
        ],
      }),
      [
        E(
          C,
          '/relations/1',
          "Inverse side 'companies' collides with the inverse side of a.company#owner on class a.person",
        ),
      ],
    ],
    [
      'an inverse named like a field of the target',
      companyWith({ relations: [{ name: 'owner', target: 'a.person', inverse: 'firstName' }] }),
      [
        E(
          C,
          '/relations/0/inverse',
          "Inverse side 'firstName' collides with field 'firstName' on class a.person",
        ),
      ],
    ],
    [
      'a relation name that is the plural of an unrelated class',
      { [X]: cls('a.invoice', { relations: [{ name: 'persons', target: 'a.company', inverse: 'bills' }] }) },
      [
        W(
          X,
          '/relations/0/name',
          "'persons' is the plural of a.person, but this relation leads to a.company: related paths '.../persons' follow the relation",
        ),
      ],
    ],
    // Scripts and reports
    [
      'SET_VALUES of an unknown field',
      script({ name: 's', type: 'SET_VALUES', trigger: ['CREATE'], set: { nope: "'x'" } }),
      [E(C, '/scripts/0/set/nope', "Class a.company has no field 'nope'")],
    ],
    [
      'SET_VALUES without set',
      script({ name: 's', type: 'SET_VALUES', trigger: ['CREATE'] }),
      [E(C, '/scripts/0', "A SET_VALUES script needs 'set'")],
    ],
    [
      'a bad condition',
      script({ name: 's', type: 'SET_VALUES', trigger: ['CREATE'], condition: 'x ==', set: {} }),
      [E(C, '/scripts/0/condition', 'Formula does not parse: Unexpected end of formula (at character 4)')],
    ],
    [
      'an unknown trigger',
      script({ name: 's', type: 'SET_VALUES', trigger: ['SAVE'], set: {} }),
      [E(C, '/scripts/0/trigger/0', 'Must be one of "MANUAL", "CREATE", "UPDATE", "DELETE"')],
    ],
    [
      'a beta gateway',
      script({
        name: 'm',
        type: 'CONSUMER_GATEWAY',
        gateway: 'Mail',
        scope: 'OBJECT',
        trigger: ['CREATE'],
        parameters: [{ name: 'to', formula: 'name' }],
      }),
      [I(C, '/scripts/0/gateway', 'Gateway Mail is beta: its contract may still change')],
    ],
    [
      'a Webhook without url',
      webhook([]),
      [E(C, '/scripts/0/parameters', "Gateway Webhook needs the parameter 'url'")],
    ],
    [
      'a parameter template that is missing',
      webhook([
        { name: 'url', value: 'https://x' },
        { name: 'payload_x', templateFile: 'templates/nope.hbs' },
      ]),
      [
        E(
          C,
          '/scripts/0/parameters/1/templateFile',
          "Template 'templates/nope.hbs' is not in the repository",
        ),
      ],
    ],
    [
      'a parameter with two sources',
      webhook([{ name: 'url', value: 'a', formula: 'b' }]),
      [E(C, '/scripts/0/parameters/0', 'Must NOT have more than 2 properties')],
    ],
    [
      'a report with its template',
      companyWith({ reports: [{ name: 'letter', template: 'templates/letter.hbs', format: 'pdf' }] }),
      [],
    ],
    [
      'a report template that is missing',
      companyWith({ reports: [{ name: 'r', template: 'templates/r.hbs', format: 'html' }] }),
      [E(C, '/reports/0/template', "Template 'templates/r.hbs' is not in the repository")],
    ],
    // Lists
    [
      'a duplicate list key',
      {
        'lists/status.json': {
          version: 2,
          kind: 'list',
          list: 'a.status',
          values: [
            { key: 'open', label: 'A' },
            { key: 'open', label: 'B' },
          ],
        },
      },
      [E('lists/status.json', '/values/1/key', "Key 'open' is used twice")],
    ],
    [
      'a duplicate list',
      { 'lists/z.json': { version: 2, kind: 'list', list: 'a.status', values: [] } },
      [E('lists/z.json', '/list', 'List a.status is already defined in lists/status.json')],
    ],
    // Access control
    [
      'an anchored definition',
      anchored({
        nodes: [
          { id: 'n1', path: [], operations: ['READ'] },
          { id: 'n2', path: ['employees'], operations: ['READ', 'WRITE'] },
        ],
      }),
      [],
    ],
    ['an unknown anchor', anchored({ anchor: 'a.nope' }), [E(ACL, '/anchor', "Unknown class 'a.nope'")]],
    [
      'an unknown holder relation',
      anchored({ grantToUsers: [{ id: 's1', relation: 'staff' }] }),
      [E(ACL, '/grantToUsers/0/relation', "Class a.company has no relation 'staff'")],
    ],
    [
      'an unresolved node path',
      anchored({ nodes: [{ id: 'n1', path: ['employees', 'pets'], operations: ['READ'] }] }),
      [E(ACL, '/nodes/0/path/1', "Class a.person has no relation 'pets'")],
    ],
    [
      'an inverse step in a path',
      {
        ...anchored({
          anchor: 'a.person',
          grantToUsers: [],
          nodes: [{ id: 'n1', path: ['employers'], operations: ['READ'] }],
        }),
      },
      [],
    ],
    [
      'a duplicate node id',
      anchored({
        nodes: [
          { id: 'n1', path: [], operations: ['READ'] },
          { id: 'n1', path: [], operations: ['WRITE'] },
        ],
      }),
      [E(ACL, '/nodes/1/id', "Node id 'n1' is used twice")],
    ],
    [
      'an anchored node with a class',
      anchored({ nodes: [{ id: 'n1', class: 'a.person', operations: ['READ'] }] }),
      [E(ACL, '/nodes/0/class', "A node of an anchored definition uses a 'path', not a 'class'")],
    ],
    [
      'a path-less definition with holders',
      anchored({ anchor: undefined, nodes: [{ id: 'n1', class: 'a.person', operations: ['READ'] }] }),
      [E(ACL, '/grantToUsers', 'A definition without anchor has no holders; it is granted through roles')],
    ],
    [
      'a path-less node with an unknown class',
      anchored({
        anchor: undefined,
        grantToUsers: [],
        nodes: [{ id: 'n1', class: 'a.nope', operations: ['READ'] }],
      }),
      [E(ACL, '/nodes/0/class', "Unknown class 'a.nope'")],
    ],
    [
      'an unknown operation',
      anchored({ nodes: [{ id: 'n1', path: [], operations: ['ALL'] }] }),
      [E(ACL, '/nodes/0/operations/0', 'Must be one of "READ", "WRITE", "CREATE", "DELETE"')],
    ],
    // Roles
    [
      'a role with an unknown definition',
      {
        ...anchored({}),
        [ROLES]: {
          version: 2,
          kind: 'roles',
          roles: [{ name: 'member', grants: [{ definition: 'team' }, { definition: 'nobody' }] }],
        },
      },
      [E(ROLES, '/roles/0/grants/1/definition', "Unknown access-control definition 'nobody'")],
    ],
    [
      'a role narrowing to operations never granted',
      {
        ...anchored({}),
        [ROLES]: {
          version: 2,
          kind: 'roles',
          roles: [{ name: 'member', grants: [{ definition: 'team', operations: ['READ', 'DELETE'] }] }],
        },
      },
      [W(ROLES, '/roles/0/grants/0/operations', "Definition 'team' grants DELETE on no node")],
    ],
    [
      'a duplicate role',
      {
        [ROLES]: {
          version: 2,
          kind: 'roles',
          roles: [
            { name: 'viewer', grants: [] },
            { name: 'viewer', grants: [] },
          ],
        },
      },
      [E(ROLES, '/roles/1/name', "Role 'viewer' is already defined in roles.json")],
    ],
    // Tenant settings and migration
    [
      'general search classes',
      { 'tenant.json': { version: 2, kind: 'tenant', generalSearchClasses: ['companies', 'persons'] } },
      [],
    ],
    [
      'an unknown general search class',
      {
        'tenant.json': { version: 2, kind: 'tenant', generalSearchClasses: ['companies', 'serviceCallLogs'] },
      },
      [E('tenant.json', '/generalSearchClasses/1', "Unknown class plural 'serviceCallLogs'")],
    ],
    [
      'a migration',
      {
        'migration.json': {
          version: 2,
          kind: 'migration',
          class: 'migration.legacy',
          migration: {
            migrationType: 'x',
            steps: [
              {
                source: 'P',
                target: 'a.person',
                fields: [{ source: 'F', target: 'firstName' }],
                relations: [],
              },
            ],
          },
        },
      },
      [I('migration.json', '', 'Migration is a beta feature, outside the compatibility guarantee')],
    ],
    [
      'a migration naming an unknown field',
      {
        'migration.json': {
          version: 2,
          kind: 'migration',
          migration: {
            migrationType: 'x',
            steps: [
              { source: 'P', target: 'a.person', fields: [{ source: 'F', target: 'nick' }], relations: [] },
            ],
          },
        },
      },
      [
        I('migration.json', '', 'Migration is a beta feature, outside the compatibility guarantee'),
        E('migration.json', '/migration/steps/0/fields/0/target', "Class a.person has no field 'nick'"),
      ],
    ],
    // Default data
    [
      'default data',
      data([
        { _class: 'persons', _id: uuid(1), firstName: 'Ann' },
        { _class: 'companies', _id: uuid(2), name: 'Acme', employees: [`/data/{tenant}/persons/${uuid(1)}`] },
      ]),
      [],
    ],
    [
      'default data of an unknown class',
      data([{ _class: 'robots', _id: uuid(1) }]),
      [E(DATA, '/objects/0/_class', "Unknown class plural 'robots'")],
    ],
    [
      'default data of an abstract class',
      data([{ _class: 'orgs', _id: uuid(1) }]),
      [E(DATA, '/objects/0/_class', 'Objects cannot be created as orgs')],
    ],
    [
      'a duplicate default object id',
      data([
        { _class: 'persons', _id: uuid(1) },
        { _class: 'persons', _id: uuid(1) },
      ]),
      [E(DATA, '/objects/1/_id', `Object id ${uuid(1)} is already used in ${DATA}`)],
    ],
    [
      'an unknown key in default data',
      data([{ _class: 'persons', _id: uuid(1), nickname: 'x' }]),
      [W(DATA, '/objects/0/nickname', "Class a.person has no field or relation 'nickname'; it is ignored")],
    ],
    [
      'a malformed href in default data',
      data([{ _class: 'companies', _id: uuid(1), name: 'A', employees: '/data/{tenant}/persons/1' }]),
      [
        E(
          DATA,
          '/objects/0/employees',
          "Relation 'employees' takes an array of hrefs '/data/{tenant}/<plural>/<id>' of a.person objects",
        ),
      ],
    ],
    [
      'a bad default object id',
      data([{ _class: 'persons', _id: 'p1' }]),
      [
        E(
          DATA,
          '/objects/0/_id',
          'Must match pattern "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"',
        ),
      ],
    ],
    // Format 1
    [
      'a format-1 class',
      {
        [X]: {
          version: 1,
          kind: 'class',
          class: 'a.note',
          extends: 'a.org',
          fields: { body: { type: 'LONGTEXT' } },
          relations: [{ name: 'persons', target: 'a.person', many: true }],
        },
      },
      [],
    ],
    [
      'a format-1 class with a bad field type',
      { [X]: { version: 1, kind: 'class', class: 'a.note', fields: { body: { type: 'MEMO' } } } },
      [E(X, '/fields/body/type', /^Must be one of /)],
    ],
    [
      'a format-1 class with a bad many',
      {
        [X]: {
          version: 1,
          kind: 'class',
          class: 'a.note',
          relations: [{ name: 'persons', target: 'a.person', many: 'yes' }],
        },
      },
      [E(X, '/relations/0/many', 'Must be boolean')],
    ],
    [
      'a format-1 class with an unknown parent',
      { [X]: { version: 1, kind: 'class', class: 'a.note', extends: 'a.nope' } },
      [E(X, '/extends', "Unknown class 'a.nope'")],
    ],
    // Several bad files at once
    [
      'several bad files, each reported',
      {
        'classes/b1.json': '{',
        'classes/b2.json': cls('a.b2', { extends: ['a.nope'] }),
        'classes/b3.json': { version: 9, kind: 'class' },
      },
      [
        E('classes/b1.json', '', /^Invalid JSON/),
        E(
          'classes/b3.json',
          '/version',
          'Definition format 9 is not supported; this platform reads formats 1 and 2',
        ),
        E('classes/b2.json', '/extends/0', "Unknown class 'a.nope'"),
      ],
    ],
  ])('%s', (_name, changes, expected) => {
    const result = buildModel(repository(changes));
    expect(result.issues).toEqual(withRegexps(expected));
    expect(result.model === undefined).toBe(expected.some((i) => i.severity === 'ERROR'));
  });

  it('refuses 10,000 classes with one issue', () => {
    const changes: Files = {};
    for (let i = 0; i < 10_000; i++)
      changes[`classes/gen/c${String(i).padStart(5, '0')}.json`] = cls(`gen.c${i}`);
    const result = buildModel(repository(changes));
    expect(result.issues).toEqual([
      E('classes/gen/c01997.json', '', 'The model defines 10003 classes; at most 2000 are supported'),
    ]);
  });

  it('does not report references to a class whose file failed its schema', () => {
    const result = buildModel(repository({ [P]: cls('a.person', { fields: 'none' }) }));
    expect(result.issues).toEqual([E(P, '/fields', 'Must be array')]);
  });
});

describe('the resolved model', () => {
  const { model, upgradableFiles } = buildModel(
    repository({
      [X]: { version: 1, kind: 'class', class: 'a.note', fields: { body: { type: 'LONGTEXT' } } },
    }),
  );
  if (!model) throw new Error('base model refused');

  it('inherits fields and resolves relation ends on both sides', () => {
    const company = model.classes.get('a.company');
    expect([...(company?.fields.keys() ?? [])]).toEqual(['name', 'status']);
    expect(company?.fields.get('name')?.declaredOn).toBe('a.org');
    expect(company?.ancestors).toEqual(['a.company', 'a.org']);
    expect(model.classes.get('a.org')?.descendants).toEqual(['a.org', 'a.company']);
    const employees = company?.relations.get('employees');
    expect(employees).toMatchObject({ direction: 'forward', otherClass: 'a.person', multiple: true });
    expect(employees?.relation.key).toBe('a.company#employees');
    expect(model.classes.get('a.person')?.relations.get('employers')).toMatchObject({
      direction: 'inverse',
      otherClass: 'a.company',
      multiple: true,
      relation: { key: 'a.company#employees' },
    });
    expect(model.byPlural.get('companies')?.name).toBe('a.company');
  });

  it('adds the built-in classes and lists', () => {
    for (const plural of ['serviceCallLogs', 'logEntries', 'secretValues', 'systemSettings']) {
      expect(model.byPlural.get(plural)?.system).toBe(true);
    }
    expect(model.classes.get('a.company')?.system).toBe(false);
    expect(model.lists.get('system.profileRole')?.values.map((v) => v.key)).toEqual([
      'admin',
      'member',
      'viewer',
    ]);
    expect(model.lists.has('system.externalService')).toBe(true);
  });

  it('counts format-1 files of every kind as upgradable', () => {
    const result = buildModel(
      repository({
        'lists/old.json': { version: 1, kind: 'list', list: 'a.old', values: [{ key: 'k', label: 'K' }] },
      }),
    );
    expect(result.issues).toEqual([]);
    expect(result.upgradableFiles).toEqual(['lists/old.json']);
    expect(result.model?.lists.get('a.old')?.values).toEqual([{ key: 'k', label: 'K' }]);
  });

  it('converts format-1 files in memory and counts them', () => {
    expect(upgradableFiles).toEqual([X]);
    expect(model.classes.get('a.note')?.fields.get('body')?.type).toBe('LONGTEXT');
  });

  it('keeps templates by repository path', () => {
    expect(model.templates.get('templates/letter.hbs')).toBe('Dear {{name}}');
  });
});

describe('loadModelRepository on disk', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-model-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('throws ValidationError when the directory cannot be read', async () => {
    await expect(loadModelRepository(path.join(root, 'missing'))).rejects.toBeInstanceOf(ValidationError);
  });

  it('skips hidden directories and symbolic links, and refuses oversized files', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'repo-'));
    fs.mkdirSync(path.join(dir, '.git'));
    fs.writeFileSync(path.join(dir, '.git', 'x.json'), '{');
    fs.writeFileSync(path.join(root, 'outside.json'), '{');
    fs.symlinkSync(path.join(root, 'outside.json'), path.join(dir, 'link.json'));
    fs.writeFileSync(path.join(dir, 'big.json'), ' '.repeat(3 * 1024 * 1024));
    fs.writeFileSync(path.join(dir, 'notes.md'), '# not a model file');
    const result = await loadModelRepository(dir);
    expect(result.issues).toEqual([E('big.json', '', 'The file is larger than 2097152 bytes (3145728)')]);
  });

  it('reads no more than the byte limit of a repository, and refuses the load past it', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'repo-'));
    fs.writeFileSync(path.join(dir, 'a.json'), ' '.repeat(600));
    fs.writeFileSync(path.join(dir, 'b.json'), ' '.repeat(600));
    const result = await loadModelRepository(dir, 1000);
    expect(result.model).toBeUndefined();
    expect(result.issues).toContainEqual(
      expect.objectContaining({
        severity: 'ERROR',
        file: expect.stringMatching(/^[ab]\.json$/),
        message: "The repository's files are larger than 1000 bytes together; this file was not read",
      }),
    );
  });

  it('loads the example CRM model without errors, well under a second', async () => {
    const started = Date.now();
    const result = await loadModelRepository(path.resolve(__dirname, '../../../examples/models/crm'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.issues.filter((i) => i.severity !== 'INFO')).toEqual([]);
    expect(result.upgradableFiles).toEqual(['classes/crm/note.json']);
    const model = result.model;
    expect(model?.byPlural.get('shareholders')?.attachableTo).toEqual(['crm.person', 'crm.company']);
    expect(model?.classes.get('crm.invoice')?.relations.get('lines')?.relation).toMatchObject({
      cascadeDelete: true,
      required: true,
      key: 'crm.invoiceLine#invoice',
    });
    expect(model?.accessControl.map((d) => d.name).sort()).toEqual([
      'allInvoices',
      'companyTeam',
      'everything',
      'ownData',
    ]);
    expect(model?.settings.generalSearchClasses).toEqual(['companies', 'persons']);
    expect(model?.defaultData.length).toBe(11);
    expect(model?.migration).toMatchObject({ migrationType: 'legacy-crm' });
  });
});
