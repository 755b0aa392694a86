import type { ClassDef, DataType, FieldDef, Model, RelationEnd } from '@odp/core';
import { NON_INDEXED_TYPES, NON_SEARCHABLE_TYPES, NotFoundError, ValidationError } from '@odp/core';

/**
 * Bodies of `GET /metadata/{tenant}/dataObject|relatedDataObject|form?classes=a,b` (documented in
 * docs/model-format.md, "Metadata"). A class combination is the set of plural names an object has
 * (`_classes`); fields and relations are the union over those classes, each once, in the order given.
 */

export interface ListValuesDescription {
  readonly name: string;
  readonly values: readonly { readonly key: string; readonly label: string }[];
}

export interface FieldDescription {
  readonly name: string;
  readonly type: DataType;
  readonly label: string;
  readonly required: boolean;
  readonly multiple: boolean;
  /** A formula computes the value on every save (not `onlyWhenMissing`): writes are overwritten. */
  readonly readOnly: boolean;
  /** Never in responses (hidden fields and SECRET fields); still writable. */
  readonly writeOnly: boolean;
  readonly hidden: boolean;
  readonly history: boolean;
  readonly unique: boolean;
  /** Can be filtered, sorted and aggregated (numeric types) on. */
  readonly indexed: boolean;
  readonly searchable: boolean;
  /** Plural of the class that declares the field. */
  readonly declaredOn: string;
  readonly list?: ListValuesDescription;
  readonly formula?: string;
  readonly default?: { readonly value: unknown } | { readonly formula: string };
}

export interface RelationDescription {
  /** Key in `_links`, Create/Patch bodies, filters and related paths. */
  readonly name: string;
  readonly direction: 'forward' | 'inverse';
  /** Plural of the class on the other end. */
  readonly target: string;
  readonly multiple: boolean;
  readonly required: boolean;
  /** Inverse sides are never settable. */
  readonly readOnly: boolean;
  readonly cascadeDelete: boolean;
  /** Plurals of the concrete classes an object must be to be linked here (role targets: the attachable ones). */
  readonly linkableClasses: readonly string[];
}

export interface DataObjectDescription {
  readonly classes: readonly string[];
  readonly nameFormula?: string;
  readonly fields: readonly FieldDescription[];
  readonly relations: readonly RelationDescription[];
  /** The reports an object of the combination offers (`GET .../reports/{name}`), each name once. */
  readonly reports: readonly ReportDescription[];
}

/** A report of a class (model format section 8), without its template path. */
export interface ReportDescription {
  readonly name: string;
  readonly format: 'pdf' | 'html';
  readonly languages: readonly string[];
}

export interface FormDescription {
  readonly classes: readonly string[];
  /** Fields a person fills in: not computed, not hidden. */
  readonly fields: readonly FieldDescription[];
  /** Settable (forward) relations. */
  readonly relations: readonly RelationDescription[];
}

export interface RelatedListDescription extends RelationDescription {
  /** The visible fields of the related class: the columns of a related list. */
  readonly columns: readonly Pick<FieldDescription, 'name' | 'type' | 'label' | 'indexed'>[];
}

export interface RelatedDataObjectDescription {
  readonly classes: readonly string[];
  /** Every relation end of the combination with the columns of the objects on its other end. */
  readonly relatedLists: readonly RelatedListDescription[];
}

/**
 * Resolves the `classes` query parameter: comma-separated plurals. ValidationError (400) when it is
 * missing or empty; NotFoundError (404) for an unknown plural or a built-in system class.
 */
export function classCombination(model: Model, classes: unknown): ClassDef[] {
  const plurals =
    typeof classes === 'string'
      ? classes
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p !== '')
      : [];
  if (plurals.length === 0) {
    throw new ValidationError('The query parameter classes is required.', [
      { field: 'classes', message: 'comma-separated plural class names' },
    ]);
  }
  return [...new Set(plurals)].map((plural) => {
    const cls = model.byPlural.get(plural);
    if (!cls || cls.system) throw new NotFoundError(`Unknown class '${plural}'.`);
    return cls;
  });
}

function union<T extends { readonly name: string }>(maps: readonly ReadonlyMap<string, T>[]): T[] {
  const out = new Map<string, T>();
  for (const map of maps) for (const [name, value] of map) if (!out.has(name)) out.set(name, value);
  return [...out.values()];
}

function pluralOf(model: Model, name: string): string {
  return model.classes.get(name)?.plural ?? name;
}

function describeField(model: Model, field: FieldDef): FieldDescription {
  const list = field.list === undefined ? undefined : model.lists.get(field.list);
  const defaultValue = field.default;
  return {
    name: field.name,
    type: field.type,
    label: field.label ?? field.name,
    required: field.required,
    multiple: field.multiple,
    readOnly: field.formula !== undefined && !field.onlyWhenMissing,
    writeOnly: field.hidden || field.type === 'SECRET',
    hidden: field.hidden,
    history: field.history,
    unique: field.unique,
    indexed: !NON_INDEXED_TYPES.has(field.type),
    searchable: !NON_SEARCHABLE_TYPES.has(field.type),
    declaredOn: pluralOf(model, field.declaredOn),
    ...(list ? { list: { name: list.name, values: list.values } } : {}),
    ...(field.formula ? { formula: field.formula.source } : {}),
    ...(defaultValue === undefined
      ? {}
      : { default: 'formula' in defaultValue ? { formula: defaultValue.formula.source } : defaultValue }),
  };
}

/** Concrete classes whose objects can be linked through a relation end to `target`. */
function linkableClasses(model: Model, target: string): string[] {
  const cls = model.classes.get(target);
  if (!cls) return [];
  const bases = cls.attachableTo ?? [target];
  const out = new Set<string>();
  for (const base of bases) {
    for (const name of model.classes.get(base)?.descendants ?? []) {
      const candidate = model.classes.get(name);
      if (candidate && !candidate.abstract && !candidate.attachableTo && !candidate.system)
        out.add(candidate.plural);
    }
  }
  return [...out];
}

function describeRelation(model: Model, end: RelationEnd): RelationDescription {
  const forward = end.direction === 'forward';
  return {
    name: end.name,
    direction: end.direction,
    target: pluralOf(model, end.otherClass),
    multiple: end.multiple,
    required: forward && end.relation.required,
    readOnly: !forward,
    cascadeDelete: end.relation.cascadeDelete,
    linkableClasses: linkableClasses(model, end.otherClass),
  };
}

export function describeDataObject(model: Model, classes: readonly ClassDef[]): DataObjectDescription {
  const nameFormula = classes.find((c) => c.nameFormula)?.nameFormula?.source;
  return {
    classes: classes.map((c) => c.plural),
    ...(nameFormula === undefined ? {} : { nameFormula }),
    fields: union(classes.map((c) => c.fields)).map((f) => describeField(model, f)),
    relations: union(classes.map((c) => c.relations)).map((r) => describeRelation(model, r)),
    reports: describeReports(model, classes),
  };
}

/** Reports of the classes and their ancestors, as the report route finds them by name (first one wins). */
function describeReports(model: Model, classes: readonly ClassDef[]): ReportDescription[] {
  const byName = new Map<string, ReportDescription>();
  for (const cls of classes) {
    for (const ancestor of cls.ancestors) {
      for (const report of model.classes.get(ancestor)?.reports ?? []) {
        if (!byName.has(report.name))
          byName.set(report.name, { name: report.name, format: report.format, languages: report.languages });
      }
    }
  }
  return [...byName.values()];
}

export function describeForm(model: Model, classes: readonly ClassDef[]): FormDescription {
  const all = describeDataObject(model, classes);
  return {
    classes: all.classes,
    fields: all.fields.filter((f) => !f.readOnly && !f.hidden),
    relations: all.relations.filter((r) => !r.readOnly),
  };
}

export function describeRelatedDataObject(
  model: Model,
  classes: readonly ClassDef[],
): RelatedDataObjectDescription {
  return {
    classes: classes.map((c) => c.plural),
    relatedLists: union(classes.map((c) => c.relations)).map((end) => ({
      ...describeRelation(model, end),
      columns: [...(model.classes.get(end.otherClass)?.fields.values() ?? [])]
        .filter((f) => !f.hidden && f.type !== 'SECRET')
        .map((f) => ({
          name: f.name,
          type: f.type,
          label: f.label ?? f.name,
          indexed: !NON_INDEXED_TYPES.has(f.type),
        })),
    })),
  };
}

export interface ClassDescription {
  /** Plural REST name: the `{typeName}` of data routes. */
  readonly name: string;
  /** Qualified name (`<package>.<name>`). */
  readonly qualifiedName: string;
  /** Plurals of the direct parents. */
  readonly extends: readonly string[];
  readonly abstract: boolean;
  /** Role classes are gained through relations, never created: the plurals they attach to. */
  readonly attachableTo: readonly string[] | null;
  /** Whether `POST /data/{tenant}/{name}` can create an object of this very class. */
  readonly creatable: boolean;
}

/**
 * Body of `GET /metadata/{tenant}/classes`: every class of the model a data route serves (built-in
 * system classes are reached under `/system` only), sorted by plural name.
 */
export function describeClasses(model: Model): ClassDescription[] {
  return [...model.classes.values()]
    .filter((cls) => !cls.system)
    .map((cls) => ({
      name: cls.plural,
      qualifiedName: cls.name,
      extends: cls.extends.map((parent) => pluralOf(model, parent)),
      abstract: cls.abstract,
      attachableTo: cls.attachableTo?.map((target) => pluralOf(model, target)) ?? null,
      creatable: !cls.abstract && cls.attachableTo === null,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
