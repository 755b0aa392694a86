/**
 * Class files resolved into ClassDefs, phase by phase: one input per name and the hierarchy
 * (`class-hierarchy.ts`), what each file declares itself (`class-members.ts`), each class resolved
 * with what it inherits (`class-resolve.ts`), then the checks that need every class resolved.
 */
import type { ClassDef, ListDef } from '@odp/core';
import { formulaSourcePaths } from '@odp/core';
import { checkFormula } from '@odp/formulas';
import type { ClassInput } from './class-hierarchy.js';
import { indexClasses, resolveHierarchy } from './class-hierarchy.js';
import type { PendingFormula, RelationOrigin } from './class-members.js';
import { assignPlurals, collectOwnFields, collectOwnRelations, formulaParser } from './class-members.js';
import { endPath, resolveClass } from './class-resolve.js';
import type { IssueList } from './issues.js';
import { pointerToken } from './issues.js';

export type { ClassInput } from './class-hierarchy.js';
export { RESERVED_PLURALS } from './class-members.js';

/** Most classes a model may define (the built-in classes not counted). */
export const MAX_CLASSES = 2_000;

export interface ClassesResult {
  readonly classes: ReadonlyMap<string, ClassDef>;
  readonly byPlural: ReadonlyMap<string, ClassDef>;
  /** File of each class, for later checks that point into it. */
  readonly fileOf: ReadonlyMap<string, string>;
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
  const byName = indexClasses(inputs, issues);
  const known = (name: string) => byName.has(name) || brokenClassNames.has(name);
  const fileOf = new Map([...byName].map(([name, input]) => [name, input.file]));
  const hierarchy = resolveHierarchy(byName, brokenClassNames, known, issues);
  const pluralOf = assignPlurals(byName, issues);
  const { parseAt, pending } = formulaParser(issues);
  const ownFields = collectOwnFields(byName, lists, brokenListNames, parseAt, issues);
  const relations = collectOwnRelations(byName, known, pluralOf, issues);
  const resolution = { byName, hierarchy, pluralOf, ownFields, relations, templates, parseAt, issues };
  const classes = new Map<string, ClassDef>();
  for (const name of hierarchy.order) classes.set(name, resolveClass(name, resolution));

  checkFormulas(pending, classes, issues);
  warnNameFormulasThroughRelations(classes, fileOf, issues);
  checkScriptAssignments(byName, classes, fileOf, issues);
  const byPlural = new Map<string, ClassDef>();
  for (const cls of classes.values()) if (!byPlural.has(cls.plural)) byPlural.set(cls.plural, cls);
  warnShadowingNames(classes, byPlural, relations.originOf, issues);
  return { classes, byPlural, fileOf };
}

/** Type-checks every formula against the resolved classes. */
function checkFormulas(
  pending: readonly PendingFormula[],
  classes: ReadonlyMap<string, ClassDef>,
  issues: IssueList,
): void {
  for (const { file, path, formula, className } of pending) {
    for (const message of checkFormula(formula, classes, className).errors) issues.error(file, path, message);
  }
}

/** A name formula that reads through relations shows related data to readers who may not read it. */
function warnNameFormulasThroughRelations(
  classes: ReadonlyMap<string, ClassDef>,
  fileOf: ReadonlyMap<string, string>,
  issues: IssueList,
): void {
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
}

/** A script may only set fields its class has. */
function checkScriptAssignments(
  byName: ReadonlyMap<string, ClassInput>,
  classes: ReadonlyMap<string, ClassDef>,
  fileOf: ReadonlyMap<string, string>,
  issues: IssueList,
): void {
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
