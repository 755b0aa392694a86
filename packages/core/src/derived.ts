/**
 * Fields whose stored value is computed from other objects (docs/access-control.md, "Formulas over
 * relations"): a field formula, a formula default or a SET_VALUES script that reads through a
 * relation (`clientName = client.legalName`, `linesTotal = sum(lines.amount)`) stores a value of
 * the related objects on this one. Such a value is shown to a reader, and filters, sorts, distinct,
 * field values and aggregations see it, only when the reader may read every object along those
 * relations; it is never searchable (the full-text index holds an object's own values).
 */
import type { ClassDef, FieldDef, Formula, FormulaNode, Model, RelationEnd } from './model.js';

/** Relation steps from an object to the objects a derived value was computed from. */
export type SourcePath = readonly RelationEnd[];

/** Derived field name -> the relation paths its value reads through (never empty). */
export type DerivedSources = ReadonlyMap<string, readonly SourcePath[]>;

const cache = new WeakMap<Model, Map<string, DerivedSources>>();

/** The derived fields of `className` (own and inherited formulas and scripts of the class). */
export function derivedSources(model: Model, className: string): DerivedSources {
  let byClass = cache.get(model);
  if (byClass === undefined) {
    byClass = new Map();
    cache.set(model, byClass);
  }
  let sources = byClass.get(className);
  if (sources === undefined) {
    const cls = model.classes.get(className);
    sources = cls === undefined ? new Map() : computeDerived(model.classes, cls);
    byClass.set(className, sources);
  }
  return sources;
}

/** The derived fields of an object with these classes, each with the paths of all its classes. */
export function derivedSourcesOf(model: Model, classes: readonly string[]): DerivedSources {
  if (classes.length === 1) return derivedSources(model, classes[0] ?? '');
  const merged = new Map<string, SourcePath[]>();
  for (const className of classes) {
    for (const [field, paths] of derivedSources(model, className)) {
      merged.set(field, [...(merged.get(field) ?? []), ...paths]);
    }
  }
  return merged;
}

/** Every formula of the class that can write `field`: its formula, formula default, SET_VALUES scripts. */
function formulasWriting(cls: ClassDef, field: FieldDef): Formula[] {
  const formulas: Formula[] = [];
  if (field.formula) formulas.push(field.formula);
  if (field.default && 'formula' in field.default) formulas.push(field.default.formula);
  for (const script of cls.scripts) {
    if (script.type !== 'SET_VALUES') continue;
    const set = script.set[field.name];
    if (set === undefined) continue;
    formulas.push(set);
    if (script.condition) formulas.push(script.condition);
  }
  return formulas;
}

/** The classes of a model, by qualified name (a Model's `classes`, or the loader's while it builds one). */
type Classes = ReadonlyMap<string, ClassDef>;

/**
 * The relation paths a formula of `cls` reads through, directly or through derived fields of the
 * object. Used by the model loader to warn about name formulas that read through relations (names
 * are not masked; docs/access-control.md).
 */
export function formulaSourcePaths(classes: Classes, cls: ClassDef, formula: Formula): SourcePath[] {
  const paths: SourcePath[] = [];
  const fields = new Set<string>();
  readerOf(classes, cls)(formula.ast, paths, fields);
  const derived = computeDerived(classes, cls);
  for (const field of fields) paths.push(...(derived.get(field) ?? []));
  return paths;
}

type Reader = (node: FormulaNode, paths: SourcePath[], fields: Set<string>) => void;

/** Collects, for formulas of `cls`, the relation paths a node reads and the own fields it reads. */
function readerOf(classes: Classes, cls: ClassDef): Reader {
  /** Relation chain of an expression (`client`, `client.parent`), or null when it is no relation. */
  const chainOf = (node: FormulaNode): RelationEnd[] | null => {
    if (node.kind === 'identifier') {
      const end = cls.relations.get(node.name);
      return end ? [end] : null;
    }
    if (node.kind !== 'member') return null;
    const base = chainOf(node.object);
    if (base === null) return null;
    const last = base[base.length - 1];
    const next = last ? classes.get(last.otherClass)?.relations.get(node.property) : undefined;
    return next ? [...base, next] : base;
  };
  /** The relation paths `node` reads and the own fields it reads (which may be derived in turn). */
  const read: Reader = (node, paths, fields) => {
    switch (node.kind) {
      case 'identifier':
      case 'member': {
        const chain = chainOf(node);
        if (chain !== null) paths.push(chain);
        else if (node.kind === 'member') read(node.object, paths, fields);
        else fields.add(node.name);
        return;
      }
      case 'call':
        node.args.forEach((arg) => read(arg, paths, fields));
        return;
      case 'unary':
        read(node.argument, paths, fields);
        return;
      case 'binary':
        read(node.left, paths, fields);
        read(node.right, paths, fields);
        return;
      case 'conditional':
        [node.test, node.consequent, node.alternate].forEach((part) => read(part, paths, fields));
        return;
      case 'literal':
        return;
    }
  };
  return read;
}

function computeDerived(classes: Classes, cls: ClassDef): DerivedSources {
  const read = readerOf(classes, cls);
  const direct = new Map<string, { paths: SourcePath[]; fields: Set<string> }>();
  for (const field of cls.fields.values()) {
    const paths: SourcePath[] = [];
    const fields = new Set<string>();
    for (const formula of formulasWriting(cls, field)) read(formula.ast, paths, fields);
    fields.delete(field.name);
    direct.set(field.name, { paths, fields });
  }
  /** Paths of a field including those of the own fields it reads, transitively (cycles cut). */
  const resolved = new Map<string, SourcePath[]>();
  const resolve = (name: string, visiting: Set<string>): SourcePath[] => {
    const done = resolved.get(name);
    if (done !== undefined) return done;
    const entry = direct.get(name);
    if (entry === undefined || visiting.has(name)) return [];
    visiting.add(name);
    const paths = [...entry.paths];
    for (const other of entry.fields) paths.push(...resolve(other, visiting));
    visiting.delete(name);
    resolved.set(name, paths);
    return paths;
  };
  const derived = new Map<string, readonly SourcePath[]>();
  for (const name of direct.keys()) {
    const paths = resolve(name, new Set());
    if (paths.length > 0) derived.set(name, paths);
  }
  return derived;
}
