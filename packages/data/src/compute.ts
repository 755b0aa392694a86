/**
 * Everything that runs on save (model-format sections 3, 6, 7): defaults of required fields left
 * empty, SET_VALUES scripts of the trigger, field formulas (respecting `onlyWhenMissing`), and the
 * display name from the class's name formula. Formulas read the pending state of the
 * request through the unit of work, so relation paths see the links being written.
 */
import { evaluate } from '@odp/formulas';
import type { FormulaEnvironment, FormulaLink, FormulaRecord } from '@odp/formulas';
import type { Formula, FormulaNode, Model, ScriptDef, StoredObject } from '@odp/core';
import { fieldsOf, relationsOf } from './classes.js';
import { coerceComputed } from './encode.js';
import type { SecretCipher } from './secret-cipher.js';
import type { UnitOfWork } from './unit-of-work.js';

/** An object being written: a StoredObject whose values and links may still change. */
export interface Draft {
  id: string;
  basicClass: string;
  classes: string[];
  name: string | null;
  values: Record<string, unknown>;
  links: Record<string, string[]>;
  createdAt: string;
  modifiedAt: string;
}

/**
 * A draft of a stored object. Values are copied shallowly: the write rules replace a field's value
 * and never change one in place, so the stored object stays as read (and no recursive deep copy
 * meets a deeply nested value).
 */
export function draftOf(object: StoredObject): Draft {
  return {
    id: object.id,
    basicClass: object.basicClass,
    classes: [...object.classes],
    name: object.name,
    values: { ...object.values },
    links: Object.fromEntries(Object.entries(object.links).map(([key, ids]) => [key, [...ids]])),
    createdAt: object.createdAt,
    modifiedAt: object.modifiedAt,
  };
}

export function hasValue(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

export interface ComputeEnvironment extends FormulaEnvironment {
  readonly model: Model;
  readonly tenantId: string;
  readonly secrets?: SecretCipher;
}

/** A SECRET value in stored form: encrypted when a cipher is configured. */
export function sealSecret(env: Pick<ComputeEnvironment, 'secrets'>, value: unknown): unknown {
  return env.secrets && typeof value === 'string' ? env.secrets.encrypt(value) : value;
}

/** An object's URI: `/data/{tenant}/<plural>/<id>`, under `/system/` for an object of a system class. */
export function objectHref(
  model: Model,
  tenantId: string,
  object: { id: string; basicClass: string },
): string {
  const cls = model.classes.get(object.basicClass);
  return `/${cls?.system ? 'system' : 'data'}/${tenantId}/${cls?.plural ?? object.basicClass}/${object.id}`;
}

/** The object as formulas see it: values (SECRET ones decrypted), system properties, relation paths. */
export function formulaRecord(
  env: ComputeEnvironment,
  uow: UnitOfWork,
  object: Draft | StoredObject,
): FormulaRecord {
  const { model } = env;
  return {
    get(name: string): unknown {
      switch (name) {
        case '_href':
          return objectHref(model, env.tenantId, object);
        case '_id':
          return object.id;
        case '_classes':
          return object.classes.map((cls) => model.classes.get(cls)?.plural ?? cls);
        case '_creationDate':
          return object.createdAt;
        case '_modificationDate':
          return object.modifiedAt;
        default: {
          if (name.startsWith('_')) return undefined;
          const value = object.values[name];
          const secret =
            env.secrets &&
            typeof value === 'string' &&
            fieldsOf(model, object.classes).get(name)?.type === 'SECRET';
          return secret ? (env.secrets?.decrypt(value) ?? null) : value;
        }
      }
    },
    async follow(name: string): Promise<FormulaLink | undefined> {
      const end = relationsOf(model, object.classes).get(name);
      if (!end) return undefined;
      const linked =
        end.direction === 'forward'
          ? await uow.loadMany(object.links[end.relation.key] ?? [])
          : (await uow.linkersOf(object.id))
              .filter((link) => link.relationKey === end.relation.key)
              .map((link) => link.source);
      return { multiple: end.multiple, records: linked.map((other) => formulaRecord(env, uow, other)) };
    },
  };
}

/** The SET_VALUES scripts of the object's classes that fire on `trigger`, each once. */
function setValuesScripts(
  model: Model,
  classes: readonly string[],
  trigger: 'CREATE' | 'UPDATE',
): Extract<ScriptDef, { type: 'SET_VALUES' }>[] {
  const seen = new Set<string>();
  const scripts: Extract<ScriptDef, { type: 'SET_VALUES' }>[] = [];
  for (const name of classes) {
    for (const script of model.classes.get(name)?.scripts ?? []) {
      const key = `${script.declaredOn}#${script.name}`;
      if (script.type !== 'SET_VALUES' || !script.trigger.includes(trigger) || seen.has(key)) continue;
      seen.add(key);
      scripts.push(script);
    }
  }
  return scripts;
}

/**
 * Runs, in this order: defaults of required fields left empty, SET_VALUES scripts of `trigger`
 * (none for a recalculation), field formulas, defaults again (for required fields a formula left
 * empty), then the name formula. Mutates and returns `draft`.
 */
export async function compute(
  env: ComputeEnvironment,
  uow: UnitOfWork,
  draft: Draft,
  trigger: 'CREATE' | 'UPDATE' | null,
  /** Fields a patch explicitly cleared: no default refills them (the required check then answers 400). */
  cleared: ReadonlySet<string> = new Set(),
): Promise<Draft> {
  const { model } = env;
  const record = formulaRecord(env, uow, draft);
  const context = { ...env, record };
  const run = (formula: Formula) => evaluate(formula, context);
  const fields = fieldsOf(model, draft.classes);
  const assign = (name: string, value: unknown) => {
    const field = fields.get(name);
    if (!field) return;
    const coerced = coerceComputed(model, field, value);
    if (coerced === undefined) delete draft.values[name];
    else draft.values[name] = field.type === 'SECRET' ? sealSecret(env, coerced) : coerced;
  };
  /** Defaults of required fields still empty; run before scripts and formulas read them, and after. */
  const applyDefaults = async () => {
    for (const field of fields.values()) {
      if (
        !field.required ||
        hasValue(draft.values[field.name]) ||
        !field.default ||
        cleared.has(field.name)
      ) {
        continue;
      }
      assign(field.name, 'value' in field.default ? field.default.value : await run(field.default.formula));
    }
  };
  await applyDefaults();
  if (trigger) {
    for (const script of setValuesScripts(model, draft.classes, trigger)) {
      if (script.condition && !(await run(script.condition))) continue;
      for (const [name, formula] of Object.entries(script.set)) assign(name, await run(formula));
    }
  }
  for (const field of fields.values()) {
    if (!field.formula || (field.onlyWhenMissing && hasValue(draft.values[field.name]))) continue;
    assign(field.name, await run(field.formula));
  }
  await applyDefaults();
  const nameFormula = [draft.basicClass, ...draft.classes]
    .map((name) => model.classes.get(name)?.nameFormula)
    .find((formula) => formula !== undefined);
  if (nameFormula) {
    const name = await run(nameFormula);
    draft.name = name === null || name === undefined || name === '' ? null : String(name);
  }
  return draft;
}

function mentions(node: FormulaNode, names: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case 'literal':
      return false;
    case 'identifier':
      return names.has(node.name);
    case 'member':
      return mentions(node.object, names);
    case 'call':
      return node.args.some((arg) => mentions(arg, names));
    case 'unary':
      return mentions(node.argument, names);
    case 'binary':
      return mentions(node.left, names) || mentions(node.right, names);
    case 'conditional':
      return [node.test, node.consequent, node.alternate].some((part) => mentions(part, names));
  }
}

/**
 * Whether a formula that runs on recalculation (field formulas, formula defaults, name formulas)
 * of an object with these classes reads through one of its relations, i.e. whether a change of a
 * linked object can change it. Objects for which it is false are never recalculated for a neighbour.
 */
export function readsThroughRelations(model: Model, classes: readonly string[]): boolean {
  const relations = new Set(relationsOf(model, classes).keys());
  const formulas: Formula[] = [];
  for (const field of fieldsOf(model, classes).values()) {
    if (field.formula) formulas.push(field.formula);
    if (field.default && 'formula' in field.default) formulas.push(field.default.formula);
  }
  for (const name of classes) {
    const nameFormula = model.classes.get(name)?.nameFormula;
    if (nameFormula) formulas.push(nameFormula);
  }
  return formulas.some((formula) => mentions(formula.ast, relations));
}

/**
 * What formulas of `classes` (field formulas, formula defaults, name formulas) read through the
 * relation named `relation`: the properties read on the related objects (`client.legalName` reads
 * `legalName`), `'all'` when the related objects are used whole (`count(invoices)`), or an empty
 * set when none reads through it. Decides which neighbours of a changed object to recalculate.
 */
export function readsVia(
  model: Model,
  classes: readonly string[],
  relation: string,
): ReadonlySet<string> | 'all' {
  const read = new Set<string>();
  let whole = false;
  const visit = (node: FormulaNode): void => {
    switch (node.kind) {
      case 'member':
        if (node.object.kind === 'identifier' && node.object.name === relation) read.add(node.property);
        else visit(node.object);
        return;
      case 'identifier':
        if (node.name === relation) whole = true;
        return;
      case 'call':
        node.args.forEach(visit);
        return;
      case 'unary':
        visit(node.argument);
        return;
      case 'binary':
        visit(node.left);
        visit(node.right);
        return;
      case 'conditional':
        [node.test, node.consequent, node.alternate].forEach(visit);
        return;
      case 'literal':
        return;
    }
  };
  for (const field of fieldsOf(model, classes).values()) {
    if (field.formula) visit(field.formula.ast);
    if (field.default && 'formula' in field.default) visit(field.default.formula.ast);
  }
  for (const name of classes) {
    const nameFormula = model.classes.get(name)?.nameFormula;
    if (nameFormula) visit(nameFormula.ast);
  }
  return whole ? 'all' : read;
}
