/**
 * The first phases of resolving class files: one input per class name, parents and role targets
 * that exist, classes ordered parents first (cycles reported), and the ancestors and descendants
 * of each class.
 */
import type { ClassFile, Sourced } from './files.js';
import type { IssueList } from './issues.js';

export interface ClassInput extends Sourced<ClassFile> {
  readonly system: boolean;
}

export interface Hierarchy {
  /** Class names, parents before children; classes on a cycle of `extends` last. */
  readonly order: readonly string[];
  /** Each class with its ancestors, itself first. */
  readonly ancestorsOf: ReadonlyMap<string, string[]>;
  /** Each class with its descendants, itself included. */
  readonly descendantsOf: ReadonlyMap<string, string[]>;
}

/** The inputs by class name; a name defined twice, or a built-in package used by a model, is an issue. */
export function indexClasses(inputs: readonly ClassInput[], issues: IssueList): Map<string, ClassInput> {
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
  return byName;
}

/** Parents and role targets must exist; classes are ordered parents first with their lineage. */
export function resolveHierarchy(
  byName: ReadonlyMap<string, ClassInput>,
  brokenClassNames: ReadonlySet<string>,
  known: (name: string) => boolean,
  issues: IssueList,
): Hierarchy {
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
  return { order, ancestorsOf, descendantsOf };
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
