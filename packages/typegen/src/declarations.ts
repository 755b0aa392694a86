/**
 * The declarations of one tenant's model (`odp types`, `GET /metadata/{tenant}/types.d.ts`): per
 * class the object as read, the create and patch bodies, the list filters and sort keys, and a
 * `Schema` naming them by plural, which `createClient<Schema>()` of `@odp/client` takes. The file
 * depends on nothing, so it can be used with any HTTP client too.
 */
import type { ClassDef, FieldDef, Model, RelationEnd } from '@odp/core';
import { NON_INDEXED_TYPES } from '@odp/core';
import { ORDERABLE_TYPES, PREFIX_TYPES } from '@odp/query-engine';
import { propertyKey, typeNames } from './names.js';
import { readType, scalarType, SHARED_DECLARATIONS, SHARED_NAMES, writeType } from './value-types.js';

export interface TypesTarget {
  /** The tenant the declarations describe (named in the file's header). */
  readonly tenantId: string;
}

const visible = (field: FieldDef): boolean => !field.hidden && field.type !== 'SECRET';
/** A formula that runs on every save overwrites what a client sends: not part of a write body. */
const computed = (field: FieldDef): boolean => field.formula !== undefined && !field.onlyWhenMissing;
const forward = (end: RelationEnd): boolean => end.direction === 'forward';

interface Names {
  readonly cls: ReadonlyMap<string, string>;
  readonly list: (qualified: string) => string;
}

/** The `.d.ts` text of the model's classes (system classes left out: they are not under `/data`). */
export function tenantTypes(model: Model, target: TypesTarget): string {
  const classes = [...model.classes.values()]
    .filter((cls) => !cls.system)
    .sort((a, b) => a.plural.localeCompare(b.plural));
  const lists = [...model.lists.values()].sort((a, b) => a.name.localeCompare(b.name));
  const listNames = typeNames(
    lists.map((list) => list.name),
    new Set(
      [
        ...SHARED_NAMES,
        ...typeNames(
          classes.map((cls) => cls.name),
          SHARED_NAMES,
        ).values(),
      ].flatMap(withSuffixes),
    ),
  );
  const names: Names = {
    cls: typeNames(
      classes.map((cls) => cls.name),
      SHARED_NAMES,
    ),
    list: (qualified) => listNames.get(qualified) ?? 'string',
  };
  const plurals = new Map(classes.map((cls) => [cls.name, cls.plural]));
  return [
    `// Declarations of the classes of tenant ${target.tenantId}, generated from its model by \`odp types\`.`,
    '// Regenerate them when the model changes; do not edit.',
    '',
    SHARED_DECLARATIONS,
    ...lists.map(
      (list) =>
        `/** Keys of list ${list.name}. */\nexport type ${names.list(list.name)} = ${union(list.values.map((v) => v.key))};\n`,
    ),
    ...classes.map((cls) => classDeclarations(cls, names, plurals)),
    schemaDeclaration(classes, names, plurals),
  ].join('\n');
}

/** A class's type name and the names derived from it (`Invoice`, `InvoiceCreate`, ...), all taken. */
const withSuffixes = (name: string): string[] =>
  ['', 'Create', 'Patch', 'Filter', 'Sort'].map((suffix) => name + suffix);

const union = (keys: readonly string[]): string =>
  keys.length === 0 ? 'never' : keys.map((key) => JSON.stringify(key)).join(' | ');

function member(name: string, type: string, optional: boolean, doc?: string): string {
  const comment = doc === undefined ? '' : `  /** ${doc.replace(/\*\//g, '*\\/')} */\n`;
  return `${comment}  readonly ${propertyKey(name)}${optional ? '?' : ''}: ${type};`;
}

const fieldDoc = (field: FieldDef): string =>
  [
    field.label,
    field.type + (field.list === undefined ? '' : ` ${field.list}`) + (field.multiple ? ', multiple' : ''),
    field.formula && `formula: ${field.formula.source}`,
  ]
    .filter((part) => part !== undefined && part !== '')
    .join('; ');

function classDeclarations(cls: ClassDef, names: Names, plurals: ReadonlyMap<string, string>): string {
  const name = names.cls.get(cls.name)!;
  const fields = [...cls.fields.values()];
  const relations = [...cls.relations.values()];
  const writable = fields.filter((field) => !computed(field));
  const settable = relations.filter(forward);
  const refType = (end: RelationEnd) => (end.multiple ? 'readonly OdpRef[]' : 'OdpRef');
  const required = (field: FieldDef) => field.required && field.default === undefined;
  const block = (title: string, typeName: string, members: readonly string[]) =>
    `/** ${title} */\nexport interface ${typeName} {\n${members.join('\n')}\n}\n`;
  const links = [
    member('_self', 'OdpLink', false),
    ...['_scripts', '_metadata', '_relatedDataObject', '_form'].map((key) => member(key, 'OdpLink', true)),
    ...relations.map((end) =>
      member(
        end.name,
        end.multiple ? 'OdpMultiLink' : 'OdpLink',
        true,
        `${end.direction} relation to ${plurals.get(end.otherClass) ?? end.otherClass}`,
      ),
    ),
  ];
  const read = [
    member('_class', 'string', false, 'Plural name of the BASIC class.'),
    member('_classes', 'readonly string[]', false, 'Plural names of every class of the object.'),
    member('_creationDate', 'string', false),
    member('_modificationDate', 'string', false),
    ...fields
      .filter(visible)
      .map((field) => member(field.name, readType(field, names.list), !field.required, fieldDoc(field))),
    `  readonly _links: {\n${links.map((text) => text.replace(/^/gm, '  ')).join('\n')}\n  };`,
  ];
  const create = [
    ...writable.map((field) =>
      member(field.name, writeType(field, names.list), !required(field), fieldDoc(field)),
    ),
    ...settable.map((end) => member(end.name, refType(end), !(end.relation.required && !end.multiple))),
  ];
  const patch = [
    ...writable.map((field) =>
      member(field.name, `${writeType(field, names.list)} | null | ''`, true, fieldDoc(field)),
    ),
    ...settable.map((end) => member(end.name, `${refType(end)} | null${end.multiple ? '' : " | ''"}`, true)),
  ];
  return [
    block(`An object of class ${cls.name} (\`${cls.plural}\`) as read.`, name, read),
    block(`A create body of \`${cls.plural}\`.`, `${name}Create`, create),
    block(
      `A patch body of \`${cls.plural}\`: an absent key is unchanged, null or "" clears.`,
      `${name}Patch`,
      patch,
    ),
    block(
      `List filters of \`${cls.plural}\` (docs/interface.md, "List / query").`,
      `${name}Filter`,
      filterMembers(fields, relations, names),
    ),
    `/** Sort keys of \`${cls.plural}\`. */\nexport type ${name}Sort = ${union(sortKeys(fields, relations))};\n`,
  ].join('\n');
}

function filterMembers(
  fields: readonly FieldDef[],
  relations: readonly RelationEnd[],
  names: Names,
): string[] {
  const members: string[] = [];
  for (const field of fields.filter((f) => visible(f) && !NON_INDEXED_TYPES.has(f.type))) {
    if (field.type !== 'FILE' && field.type !== 'IMAGE') {
      members.push(member(field.name, `${scalarType(field, names.list)} | null`, true));
    }
    if (ORDERABLE_TYPES.has(field.type)) {
      members.push(member(`${field.name}_from`, scalarType(field, names.list), true));
      members.push(member(`${field.name}_to`, scalarType(field, names.list), true));
    }
    if (PREFIX_TYPES.has(field.type)) members.push(member(`${field.name}_startswith`, 'string', true));
    members.push(member(`${field.name}_notempty`, 'true', true));
  }
  for (const end of relations) {
    members.push(member(end.name, 'string', true, "the related object's name"));
    members.push(member(`${end.name}.name`, 'string', true));
    members.push(member(`${end.name}_href`, 'string', true, "the related object's URI or id"));
    members.push(member(`${end.name}_startswith`, 'string', true));
  }
  return members;
}

function sortKeys(fields: readonly FieldDef[], relations: readonly RelationEnd[]): string[] {
  const sortable = (field: FieldDef) =>
    visible(field) && (ORDERABLE_TYPES.has(field.type) || field.type === 'BOOLEAN');
  return [
    ...fields.filter(sortable).map((field) => field.name),
    ...relations.filter((end) => !end.multiple).map((end) => end.name),
  ];
}

/**
 * A relation end as a related list: its plural and the body of a create related through it. On an
 * inverse side the path supplies the created object's forward relation, so the body leaves it out.
 */
function relatedList(end: RelationEnd, names: Names, plurals: ReadonlyMap<string, string>): string {
  const create = `${names.cls.get(end.otherClass)!}Create`;
  const body = end.direction === 'inverse' ? `Omit<${create}, ${JSON.stringify(end.relation.name)}>` : create;
  return `{ plural: ${JSON.stringify(plurals.get(end.otherClass))}; create: ${body} }`;
}

function schemaDeclaration(
  classes: readonly ClassDef[],
  names: Names,
  plurals: ReadonlyMap<string, string>,
): string {
  const entries = classes.map((cls) => {
    const name = names.cls.get(cls.name)!;
    const related = [...cls.relations.values()]
      .filter((end) => plurals.has(end.otherClass))
      .map((end) => `${propertyKey(end.name)}: ${relatedList(end, names, plurals)}`);
    return (
      `  readonly ${propertyKey(cls.plural)}: {\n    read: ${name};\n    create: ${name}Create;\n    patch: ${name}Patch;\n` +
      `    filter: ${name}Filter;\n    sort: ${name}Sort;\n    related: ${related.length === 0 ? 'Record<never, never>' : `{ ${related.join('; ')} }`};\n  };`
    );
  });
  return `/** The tenant's classes by plural name: \`createClient<Schema>(...)\` of @odp/client. */\nexport interface Schema {\n${entries.join('\n')}\n}\n`;
}
