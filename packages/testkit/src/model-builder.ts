/**
 * A small builder of resolved {@link Model}s for contract suites and the packages' unit tests:
 * classes with fields and forward relations; ancestors, descendants, inherited fields, inverse
 * sides and relation keys are derived the way the model loader resolves them.
 */
import type { ClassDef, DataType, FieldDef, ListDef, Model, RelationDef, RelationEnd } from '@odp/core';

export interface ClassSpec {
  readonly name: string;
  readonly plural: string;
  readonly extends?: readonly string[];
  readonly abstract?: boolean;
  readonly attachableTo?: readonly string[];
  readonly fields?: readonly (readonly [string, DataType, Partial<FieldDef>?])[];
  readonly relations?: readonly {
    readonly name: string;
    readonly target: string;
    /** Single-valued when left out. */
    readonly multiple?: boolean;
    /** Optional when left out. */
    readonly required?: boolean;
    readonly inverse: string;
  }[];
}

/** A field as the loader resolves one declared with only a name and a type, `extra` overriding. */
export function fieldDef(
  name: string,
  type: DataType,
  declaredOn: string,
  extra?: Partial<FieldDef>,
): FieldDef {
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

export function buildModel(specs: readonly ClassSpec[], lists: readonly ListDef[] = []): Model {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const ancestors = (name: string): string[] => [
    ...new Set([name, ...(byName.get(name)?.extends ?? []).flatMap(ancestors)]),
  ];
  const relations: RelationDef[] = specs.flatMap((spec) =>
    (spec.relations ?? []).map((relation) => ({
      ...relation,
      multiple: relation.multiple ?? false,
      required: relation.required ?? false,
      cascadeDelete: false,
      declaredOn: spec.name,
      key: `${spec.name}#${relation.name}`,
    })),
  );
  const classes = new Map<string, ClassDef>();
  for (const spec of specs) {
    const lineage = ancestors(spec.name);
    const fields = new Map<string, FieldDef>();
    for (const owner of [...lineage].reverse()) {
      for (const [name, type, extra] of byName.get(owner)?.fields ?? []) {
        fields.set(name, fieldDef(name, type, owner, extra));
      }
    }
    const ends = new Map<string, RelationEnd>();
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
      descendants: specs
        .filter((other) => ancestors(other.name).includes(spec.name))
        .map((other) => other.name),
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
    byPlural: new Map([...classes.values()].map((classDef) => [classDef.plural, classDef])),
    lists: new Map(lists.map((list) => [list.name, list])),
    accessControl: [],
    roles: [],
    settings: {},
    defaultData: [],
    templates: new Map(),
  };
}
