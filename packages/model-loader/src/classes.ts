import type {
  ClassDef,
  DataType,
  FieldDef,
  Formula,
  ListDef,
  RelationDef,
  RelationEnd,
  ReportDef,
  ScriptDef,
  ScriptParameter,
} from '@odp/core';
import { NON_INDEXED_TYPES, NUMERIC_TYPES, formulaSourcePaths } from '@odp/core';
import { checkFormula, FormulaSyntaxError, parseFormula } from '@odp/formulas';
import type { ClassFile, FieldFile, ScriptFile, Sourced } from './files.js';
import type { IssueList } from './issues.js';
import { pointerToken } from './issues.js';
import { derivePlural } from './plural.js';

/** Most classes a model may define (the built-in classes not counted). */
export const MAX_CLASSES = 2_000;
/** Plurals that name routes of their own under `/data/{tenant}/`. */
export const RESERVED_PLURALS: ReadonlySet<string> = new Set([
  'items',
  'download',
  'loadDefaultData',
  'import',
]);
/** Gateways whose contract is beta: using them gives an INFO issue. */
const BETA_GATEWAYS: ReadonlySet<string> = new Set(['Mail', 'UserInvitation']);
/** Required parameters per gateway (interface spec, Events). */
const REQUIRED_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  Webhook: ['url'],
  DatastoreReplicator: ['_type', '_projectId', '_dataset', '_table', '_credentials'],
};

export interface ClassInput extends Sourced<ClassFile> {
  readonly system: boolean;
}

export interface ClassesResult {
  readonly classes: ReadonlyMap<string, ClassDef>;
  readonly byPlural: ReadonlyMap<string, ClassDef>;
  /** File of each class, for later checks that point into it. */
  readonly fileOf: ReadonlyMap<string, string>;
}

interface Pending {
  readonly file: string;
  readonly path: string;
  readonly formula: Formula;
  readonly className: string;
}

/** Where a relation is declared, to point issues about it (its inverse side included) at the file. */
interface RelationOrigin {
  readonly file: string;
  readonly index: number;
  readonly def: RelationDef;
  readonly inverseGiven: boolean;
}

/**
 * Resolves class files into ClassDefs: names and plurals, inheritance (with cycle detection),
 * inherited fields and relations, inverse sides, scripts and reports, and type-checks every formula
 * against the resolved classes. Every problem becomes an issue; classes with problems are still
 * resolved as far as possible so that one mistake does not hide the next.
 */
export function buildClasses(
  inputs: readonly ClassInput[],
  brokenClassNames: ReadonlySet<string>,
  lists: ReadonlyMap<string, ListDef>,
  brokenListNames: ReadonlySet<string>,
  templates: ReadonlySet<string>,
  issues: IssueList,
): ClassesResult {
  const byName = new Map<string, ClassInput>();
  for (const input of inputs) {
    const name = input.doc.class;
    const earlier = byName.get(name);
    if (earlier) {
      issues.error(input.file, '/class', `Class ${name} is already defined in ${earlier.file}`);
      continue;
    }
    if (!input.system && name.startsWith('system.')) {
      issues.error(input.file, '/class', `The package 'system' is reserved for built-in classes`);
    }
    byName.set(name, input);
  }
  const known = (name: string) => byName.has(name) || brokenClassNames.has(name);
  const fileOf = new Map([...byName].map(([name, input]) => [name, input.file]));

  // Parents and role targets must exist.
  const parentsOf = new Map<string, string[]>();
  for (const [name, { file, doc }] of byName) {
    const parents: string[] = [];
    (doc.extends ?? []).forEach((parent, i) => {
      if (byName.has(parent)) parents.push(parent);
      else if (!brokenClassNames.has(parent))
        issues.error(file, `/extends/${i}`, `Unknown class '${parent}'`);
    });
    parentsOf.set(name, parents);
    (doc.attachableTo ?? []).forEach((target, i) => {
      if (!known(target)) issues.error(file, `/attachableTo/${i}`, `Unknown class '${target}'`);
    });
  }

  const order = topologicalOrder(byName, parentsOf, issues);
  const ancestorsOf = new Map<string, string[]>();
  for (const name of order) {
    const ancestors = [name];
    for (const parent of parentsOf.get(name) ?? []) {
      for (const a of ancestorsOf.get(parent) ?? []) if (!ancestors.includes(a)) ancestors.push(a);
    }
    ancestorsOf.set(name, ancestors);
  }
  const descendantsOf = new Map<string, string[]>([...byName.keys()].map((n) => [n, []]));
  for (const [name, ancestors] of ancestorsOf) for (const a of ancestors) descendantsOf.get(a)?.push(name);

  // Plurals.
  const pluralOf = new Map<string, string>();
  const pluralOwner = new Map<string, string>();
  for (const [name, { file, doc }] of byName) {
    const plural = doc.plural ?? derivePlural(name);
    const path = doc.plural === undefined ? '/class' : '/plural';
    pluralOf.set(name, plural);
    if (RESERVED_PLURALS.has(plural)) {
      issues.error(file, path, `The plural '${plural}' is reserved`);
      continue;
    }
    const other = pluralOwner.get(plural);
    if (other !== undefined) {
      issues.error(file, path, `Class ${name} has the plural '${plural}' of class ${other}`);
      continue;
    }
    pluralOwner.set(plural, name);
  }

  const pending: Pending[] = [];
  const parseAt = (source: string, file: string, path: string, className: string): Formula | undefined => {
    try {
      const formula = parseFormula(source);
      pending.push({ file, path, formula, className });
      return formula;
    } catch (error) {
      if (!(error instanceof FormulaSyntaxError)) throw error;
      issues.error(file, path, `Formula does not parse: ${error.message} (at character ${error.position})`);
      return undefined;
    }
  };

  // Own fields.
  const ownFields = new Map<string, Map<string, FieldDef>>();
  for (const [name, { file, doc }] of byName) {
    const fields = new Map<string, FieldDef>();
    (doc.fields ?? []).forEach((field, i) => {
      const at = `/fields/${i}`;
      if (fields.has(field.name)) {
        issues.error(file, `${at}/name`, `Field '${field.name}' is defined twice`);
        return;
      }
      checkField(field, file, at, lists, brokenListNames, issues);
      fields.set(field.name, fieldDef(field, name, file, at, parseAt));
    });
    ownFields.set(name, fields);
  }

  // Own relations (their origin is kept for issues about inverse sides).
  const ownRelations = new Map<string, RelationDef[]>();
  const origins: RelationOrigin[] = [];
  for (const [name, { file, doc }] of byName) {
    const relations: RelationDef[] = [];
    const seen = new Set<string>();
    (doc.relations ?? []).forEach((relation, index) => {
      const at = `/relations/${index}`;
      if (!known(relation.target)) issues.error(file, `${at}/target`, `Unknown class '${relation.target}'`);
      if (seen.has(relation.name)) {
        issues.error(file, `${at}/name`, `Relation '${relation.name}' is defined twice`);
        return;
      }
      seen.add(relation.name);
      const def: RelationDef = {
        name: relation.name,
        target: relation.target,
        multiple: relation.multiple ?? false,
        required: relation.required ?? false,
        cascadeDelete: relation.cascadeDelete ?? false,
        inverse: relation.inverse ?? pluralOf.get(name) ?? derivePlural(name),
        declaredOn: name,
        key: `${name}#${relation.name}`,
      };
      relations.push(def);
      origins.push({ file, index, def, inverseGiven: relation.inverse !== undefined });
    });
    ownRelations.set(name, relations);
  }
  const originOf = new Map(origins.map((o) => [o.def.key, o]));
  /** Inverse sides by the class they appear on (the relation's target). */
  const inverseByTarget = new Map<string, RelationDef[]>();
  for (const { def } of origins) {
    const list = inverseByTarget.get(def.target) ?? [];
    list.push(def);
    inverseByTarget.set(def.target, list);
  }

  // Resolve every class: inherited fields, forward and inverse relation ends.
  const classes = new Map<string, ClassDef>();
  for (const name of order) {
    const { file, doc, system } = byName.get(name) as ClassInput;
    const ancestors = ancestorsOf.get(name) ?? [name];
    const fields = new Map<string, FieldDef>();
    for (const a of [...ancestors].reverse()) {
      for (const [fieldName, field] of ownFields.get(a) ?? []) {
        const existing = fields.get(fieldName);
        if (existing && existing.type !== field.type && existing.declaredOn !== field.declaredOn) {
          const own = a === name;
          const index = (doc.fields ?? []).findIndex((f) => f.name === fieldName);
          issues.error(
            file,
            own ? `/fields/${index}/type` : '/extends',
            own
              ? `Field '${fieldName}' redefines the ${existing.type} field of ${existing.declaredOn} as ${field.type}`
              : `Field '${fieldName}' is inherited as ${existing.type} from ${existing.declaredOn} and as ${field.type} from ${a}`,
          );
        }
        fields.set(fieldName, field);
      }
    }
    const relations = new Map<string, RelationEnd>();
    const claim = (end: RelationEnd) => {
      const clash = fields.has(end.name) ? `field '${end.name}'` : describeEnd(relations.get(end.name));
      const same = relations.get(end.name)?.relation.key === end.relation.key;
      if (clash !== undefined && !same) {
        const origin = originOf.get(end.relation.key);
        if (origin) {
          const path = endPath(origin, end);
          const side = end.direction === 'forward' ? 'Relation' : 'Inverse side';
          issues.error(origin.file, path, `${side} '${end.name}' collides with ${clash} on class ${name}`);
        }
        return;
      }
      relations.set(end.name, end);
    };
    for (const a of [...ancestors].reverse()) {
      for (const def of ownRelations.get(a) ?? []) {
        claim({
          name: def.name,
          direction: 'forward',
          relation: def,
          otherClass: def.target,
          multiple: def.multiple,
        });
      }
    }
    for (const a of ancestors) {
      for (const def of inverseByTarget.get(a) ?? []) {
        claim({
          name: def.inverse,
          direction: 'inverse',
          relation: def,
          otherClass: def.declaredOn,
          multiple: true,
        });
      }
    }
    classes.set(name, {
      name,
      plural: pluralOf.get(name) ?? derivePlural(name),
      extends: doc.extends ?? [],
      ancestors,
      descendants: descendantsOf.get(name) ?? [name],
      abstract: doc.abstract ?? false,
      attachableTo: doc.attachableTo ?? null,
      nameFormula:
        doc.nameFormula === undefined ? undefined : parseAt(doc.nameFormula, file, '/nameFormula', name),
      fields,
      relations,
      scripts: (doc.scripts ?? []).flatMap((script, i) =>
        scriptDef(script, name, file, `/scripts/${i}`, templates, issues, parseAt),
      ),
      reports: (doc.reports ?? []).map((report, i): ReportDef => {
        if (!templates.has(report.template)) {
          issues.error(
            file,
            `/reports/${i}/template`,
            `Template '${report.template}' is not in the repository`,
          );
        }
        return { ...report, languages: report.languages ?? ['en'] };
      }),
      system,
    });
  }

  for (const { file, path, formula, className } of pending) {
    for (const message of checkFormula(formula, classes, className).errors) issues.error(file, path, message);
  }
  for (const [name, cls] of classes) {
    if (cls.nameFormula === undefined || cls.system) continue;
    const paths = formulaSourcePaths(classes, cls, cls.nameFormula);
    if (paths.length === 0) continue;
    const through = [...new Set(paths.map((steps) => steps.map((end) => end.name).join('.')))].join(', ');
    issues.warning(
      fileOf.get(name) as string,
      '/nameFormula',
      `The name formula reads through relations (${through}): a name is shown wherever the object is ` +
        'linked, also to readers who may not read those related objects; compute it from own fields',
    );
  }
  for (const [name, cls] of classes) {
    const file = fileOf.get(name) as string;
    byName.get(name)?.doc.scripts?.forEach((script, i) => {
      for (const fieldName of Object.keys(script.set ?? {})) {
        if (!cls.fields.has(fieldName)) {
          issues.error(
            file,
            `/scripts/${i}/set/${pointerToken(fieldName)}`,
            `Class ${name} has no field '${fieldName}'`,
          );
        }
      }
    });
  }
  const byPlural = new Map<string, ClassDef>();
  for (const cls of classes.values()) if (!byPlural.has(cls.plural)) byPlural.set(cls.plural, cls);
  warnShadowingNames(classes, byPlural, originOf, issues);
  return { classes, byPlural, fileOf };
}

/** Pointer to the member that names a relation end: its `name`, its `inverse`, or the relation when the inverse is defaulted. */
function endPath(origin: RelationOrigin, end: RelationEnd): string {
  if (end.direction === 'forward') return `/relations/${origin.index}/name`;
  return `/relations/${origin.index}${origin.inverseGiven ? '/inverse' : ''}`;
}

function describeEnd(end: RelationEnd | undefined): string | undefined {
  if (!end) return undefined;
  return end.direction === 'forward'
    ? `relation '${end.name}' of ${end.relation.declaredOn}`
    : `the inverse side of ${end.relation.key}`;
}

/**
 * Orders classes parents first (Kahn's algorithm, no recursion). Classes on a cycle of `extends` get an
 * issue naming the cycle and are appended last, with the cyclic edges ignored.
 */
function topologicalOrder(
  byName: ReadonlyMap<string, ClassInput>,
  parentsOf: ReadonlyMap<string, readonly string[]>,
  issues: IssueList,
): string[] {
  const remaining = new Map([...parentsOf].map(([name, parents]) => [name, new Set(parents)]));
  const children = new Map<string, string[]>();
  for (const [name, parents] of parentsOf) {
    for (const p of parents) children.set(p, [...(children.get(p) ?? []), name]);
  }
  const ready = [...remaining].filter(([, parents]) => parents.size === 0).map(([name]) => name);
  const order: string[] = [];
  while (ready.length > 0) {
    const name = ready.shift() as string;
    order.push(name);
    remaining.delete(name);
    for (const child of children.get(name) ?? []) {
      const parents = remaining.get(child);
      parents?.delete(name);
      if (parents?.size === 0) ready.push(child);
    }
  }
  const reported = new Set<string>();
  for (const start of remaining.keys()) {
    if (reported.has(start)) continue;
    // Walk the first unresolved parent until a class repeats: that part of the walk is a cycle.
    const walk: string[] = [];
    let current: string | undefined = start;
    while (current !== undefined && !walk.includes(current)) {
      walk.push(current);
      const next: string | undefined = [...(remaining.get(current) ?? [])][0];
      current = next;
    }
    if (current === undefined) continue;
    const cycle = walk.slice(walk.indexOf(current));
    const description = [...cycle, current].join(' -> ');
    cycle.forEach((name, i) => {
      if (reported.has(name)) return;
      reported.add(name);
      const next = cycle[(i + 1) % cycle.length] as string;
      const input = byName.get(name) as ClassInput;
      const index = (input.doc.extends ?? []).indexOf(next);
      issues.error(input.file, `/extends/${index}`, `Cycle in extends: ${description}`);
    });
  }
  return [...order, ...remaining.keys()];
}

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const TIME_PATTERN = /^\d{2}:\d{2}(:\d{2})?$/;

/** Why a literal default does not fit its field, or undefined when it fits. */
function literalProblem(type: DataType, value: unknown, list: ListDef | undefined): string | undefined {
  if (NUMERIC_TYPES.has(type)) {
    if (typeof value !== 'number') return 'must be a number';
    return type === 'INTEGER' && !Number.isInteger(value) ? 'must be an integer' : undefined;
  }
  switch (type) {
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'DATE':
      return typeof value === 'string' && DATE_PATTERN.test(value) ? undefined : 'must be a YYYY-MM-DD date';
    case 'TIME':
      return typeof value === 'string' && TIME_PATTERN.test(value) ? undefined : 'must be HH:MM or HH:MM:SS';
    case 'LIST':
      if (typeof value !== 'string') return 'must be a key of the list';
      return list && !list.values.some((v) => v.key === value)
        ? `'${value}' is not a key of list ${list.name}`
        : undefined;
    case 'JSON':
      return undefined;
    case 'ARRAY':
      return Array.isArray(value) ? undefined : 'must be an array';
    case 'FILE':
    case 'IMAGE':
    case 'SECRET':
      return `a ${type} field cannot have a default`;
    default:
      return typeof value === 'string' ? undefined : 'must be a string';
  }
}

function isFormulaDefault(value: unknown): value is { formula: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { formula?: unknown }).formula === 'string'
  );
}

function checkField(
  field: FieldFile,
  file: string,
  at: string,
  lists: ReadonlyMap<string, ListDef>,
  brokenListNames: ReadonlySet<string>,
  issues: IssueList,
): void {
  const listName = field.list ?? undefined;
  if (field.type === 'LIST' && listName === undefined) {
    issues.error(file, at, `LIST field '${field.name}' needs a list`);
  }
  if (listName !== undefined && field.type !== 'LIST') {
    issues.warning(file, `${at}/list`, `'list' has no effect on a ${field.type} field`);
  }
  if (listName !== undefined && !lists.has(listName) && !brokenListNames.has(listName)) {
    issues.error(file, `${at}/list`, `Unknown list '${listName}'`);
  }
  if (
    field.unique &&
    (NON_INDEXED_TYPES.has(field.type) || field.type === 'FILE' || field.type === 'IMAGE')
  ) {
    issues.error(file, `${at}/unique`, `A ${field.type} field cannot be unique: the type is not indexed`);
  }
  if (field.default !== undefined && field.default !== null && field.required !== true) {
    // The interface applies defaults to required fields left empty only: on an optional field the
    // declared default would silently never apply.
    issues.warning(
      file,
      `${at}/default`,
      `The default of '${field.name}' never applies: defaults fill required fields left empty, and the field is not required`,
    );
  }
  if (field.onlyWhenMissing && !field.formula) {
    issues.warning(file, `${at}/onlyWhenMissing`, `'onlyWhenMissing' has no effect without a formula`);
  }
  if (field.default !== undefined && field.default !== null && !isFormulaDefault(field.default)) {
    const list = listName === undefined ? undefined : lists.get(listName);
    const values = field.multiple && Array.isArray(field.default) ? field.default : [field.default];
    const problem = values
      .map((v: unknown) => literalProblem(field.type, v, list))
      .find((p) => p !== undefined);
    if (problem !== undefined) issues.error(file, `${at}/default`, `The default ${problem}`);
  }
}

type ParseAt = (source: string, file: string, path: string, className: string) => Formula | undefined;

function fieldDef(field: FieldFile, className: string, file: string, at: string, parseAt: ParseAt): FieldDef {
  let defaultValue: FieldDef['default'];
  if (isFormulaDefault(field.default)) {
    const formula = parseAt(field.default.formula, file, `${at}/default/formula`, className);
    if (formula) defaultValue = { formula };
  } else if (field.default !== undefined && field.default !== null) {
    defaultValue = { value: field.default };
  }
  const formula = field.formula ? parseAt(field.formula, file, `${at}/formula`, className) : undefined;
  return {
    name: field.name,
    type: field.type,
    required: field.required ?? false,
    multiple: field.multiple ?? false,
    ...(defaultValue ? { default: defaultValue } : {}),
    ...(formula ? { formula } : {}),
    onlyWhenMissing: field.onlyWhenMissing ?? false,
    hidden: field.hidden ?? false,
    history: field.history ?? false,
    ...(field.list ? { list: field.list } : {}),
    unique: field.unique ?? false,
    ...(field.label === undefined ? {} : { label: field.label }),
    declaredOn: className,
  };
}

function scriptDef(
  script: ScriptFile,
  className: string,
  file: string,
  at: string,
  templates: ReadonlySet<string>,
  issues: IssueList,
  parseAt: ParseAt,
): ScriptDef[] {
  const condition =
    script.condition === undefined
      ? undefined
      : parseAt(script.condition, file, `${at}/condition`, className);
  const common = {
    name: script.name,
    trigger: script.trigger,
    declaredOn: className,
    ...(condition ? { condition } : {}),
  };
  if (script.type === 'SET_VALUES') {
    if (script.set === undefined) {
      issues.error(file, at, `A SET_VALUES script needs 'set'`);
      return [];
    }
    const set: Record<string, Formula> = {};
    for (const [fieldName, source] of Object.entries(script.set)) {
      const formula = parseAt(source, file, `${at}/set/${pointerToken(fieldName)}`, className);
      if (formula) set[fieldName] = formula;
    }
    return [{ type: 'SET_VALUES', ...common, set }];
  }
  if (script.gateway === undefined) {
    issues.error(file, at, `A CONSUMER_GATEWAY script needs 'gateway'`);
    return [];
  }
  if (BETA_GATEWAYS.has(script.gateway)) {
    issues.info(file, `${at}/gateway`, `Gateway ${script.gateway} is beta: its contract may still change`);
  }
  if (script.gateway === 'DatastoreReplicator' && script.trigger.includes('MANUAL')) {
    issues.error(
      file,
      `${at}/trigger`,
      'DatastoreReplicator supports the triggers CREATE, UPDATE and DELETE',
    );
  }
  const parameters = (script.parameters ?? []).map((p, j): ScriptParameter => {
    const path = `${at}/parameters/${j}`;
    if (p.templateFile !== undefined && !templates.has(p.templateFile)) {
      issues.error(file, `${path}/templateFile`, `Template '${p.templateFile}' is not in the repository`);
    }
    const formula =
      p.formula === undefined ? undefined : parseAt(p.formula, file, `${path}/formula`, className);
    return {
      name: p.name,
      ...(p.value === undefined ? {} : { value: p.value }),
      ...(formula ? { formula } : {}),
      ...(p.templateFile === undefined ? {} : { templateFile: p.templateFile }),
    };
  });
  for (const required of REQUIRED_PARAMETERS[script.gateway] ?? []) {
    if (!parameters.some((p) => p.name === required)) {
      issues.error(file, `${at}/parameters`, `Gateway ${script.gateway} needs the parameter '${required}'`);
    }
  }
  return [{ type: 'CONSUMER_GATEWAY', ...common, gateway: script.gateway, scope: 'OBJECT', parameters }];
}

/**
 * A relation or inverse name that equals the plural of an unrelated class makes related paths read
 * differently than they look (`/companies/{id}/persons` follows the relation named `persons`).
 */
function warnShadowingNames(
  classes: ReadonlyMap<string, ClassDef>,
  byPlural: ReadonlyMap<string, ClassDef>,
  originOf: ReadonlyMap<string, RelationOrigin>,
  issues: IssueList,
): void {
  for (const cls of classes.values()) {
    for (const end of cls.relations.values()) {
      const named = byPlural.get(end.name);
      const other = classes.get(end.otherClass);
      if (!named || !other || other.ancestors.includes(named.name) || named.ancestors.includes(other.name))
        continue;
      const origin = originOf.get(end.relation.key);
      if (!origin) continue;
      const path = endPath(origin, end);
      issues.warning(
        origin.file,
        path,
        `'${end.name}' is the plural of ${named.name}, but this ${end.direction === 'forward' ? 'relation' : 'inverse side'} leads to ${other.name}: related paths '.../${end.name}' follow the relation`,
      );
    }
  }
}
