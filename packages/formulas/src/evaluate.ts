import type { Formula, FormulaNode } from '@odp/core';
import type { FormulaEnvironment } from './functions.js';
import { functionNamed } from './functions.js';
import type { FormulaValue } from './values.js';
import { compareValues, isTruthy, toNumber, toText, valuesEqual } from './values.js';

/**
 * One object as the evaluator sees it. The data service implements this over its stored objects;
 * `follow` is the injected loader, called for every object of a step at once (`Promise.all`), so an
 * implementation can batch the lookups of one step into one store query.
 */
export interface FormulaRecord {
  /** A field value or system property (`_href`, `_id`, `_classes`, ...); undefined when absent. */
  get(name: string): unknown;
  /** The objects linked through relation `name` (forward or inverse side); undefined when `name` is no relation. */
  follow(name: string): Promise<FormulaLink | undefined>;
}

export interface FormulaLink {
  readonly multiple: boolean;
  readonly records: readonly FormulaRecord[];
}

export interface FormulaContext extends FormulaEnvironment {
  /** The object the formula is evaluated on. */
  readonly record: FormulaRecord;
}

/** Objects reached through relations, before they are used as a value (then they become hrefs). */
class Reached {
  constructor(
    readonly records: readonly FormulaRecord[],
    readonly multiple: boolean,
  ) {}
}

type Evaluated = FormulaValue | Reached;

function fromStored(value: unknown): FormulaValue {
  if (value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return value as FormulaValue;
}

function asValue(evaluated: Evaluated): FormulaValue {
  if (!(evaluated instanceof Reached)) return evaluated;
  const hrefs = evaluated.records.map((r) => fromStored(r.get('_href')));
  return evaluated.multiple ? hrefs : (hrefs[0] ?? null);
}

function finite(n: number): FormulaValue {
  return Number.isFinite(n) ? n : null;
}

function arithmetic(operator: '-' | '*' | '/' | '%', left: FormulaValue, right: FormulaValue): FormulaValue {
  const a = toNumber(left);
  const b = toNumber(right);
  if (a === null || b === null) return null;
  switch (operator) {
    case '-':
      return finite(a - b);
    case '*':
      return finite(a * b);
    case '/':
      return b === 0 ? null : finite(a / b);
    case '%':
      return b === 0 ? null : finite(a % b);
  }
}

function plus(left: FormulaValue, right: FormulaValue): FormulaValue {
  if (left === null || right === null) return null;
  if (typeof left === 'string' || typeof right === 'string') return `${toText(left)}${toText(right)}`;
  return arithmetic('-', left, -(toNumber(right) ?? NaN));
}

function compare(operator: '<' | '<=' | '>' | '>=', left: FormulaValue, right: FormulaValue): FormulaValue {
  const order = compareValues(left, right);
  if (order === null) return null;
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

/**
 * A value now, or later when a relation had to be followed: the evaluator continues synchronously
 * where it can, so a formula that reads only its own object's values (most of them) allocates no
 * promise per node.
 */
type Pending<T> = T | Promise<T>;

function property(from: Reached, name: string): Pending<Evaluated> {
  const values: FormulaValue[] = [];
  for (const record of from.records) {
    const value = record.get(name);
    if (value === undefined && !name.startsWith('_')) return followedProperty(from, name);
    values.push(fromStored(value));
  }
  return from.multiple ? values.flatMap((v) => (Array.isArray(v) ? v : [v])) : (values[0] ?? null);
}

/** `name` on objects some of which have no value for it: a relation is followed where one is. */
async function followedProperty(from: Reached, name: string): Promise<Evaluated> {
  const results = await Promise.all(
    from.records.map(async (record): Promise<{ link: FormulaLink } | { value: FormulaValue }> => {
      const value = record.get(name);
      if (value !== undefined || name.startsWith('_')) return { value: fromStored(value) };
      const link = await record.follow(name);
      return link ? { link } : { value: null };
    }),
  );
  const links = results.flatMap((r) => ('link' in r ? [r.link] : []));
  if (links.length > 0) {
    return new Reached(
      links.flatMap((l) => l.records),
      from.multiple || links.some((l) => l.multiple),
    );
  }
  const values = results.map((r) => ('value' in r ? r.value : null));
  return from.multiple ? values.flatMap((v) => (Array.isArray(v) ? v : [v])) : (values[0] ?? null);
}

function combine(
  operator: Exclude<BinaryNode['operator'], '&&' | '||' | '??'>,
  left: FormulaValue,
  right: FormulaValue,
): FormulaValue {
  switch (operator) {
    case '==':
      return valuesEqual(left, right);
    case '!=':
      return !valuesEqual(left, right);
    case '+':
      return plus(left, right);
    case '-':
    case '*':
    case '/':
    case '%':
      return arithmetic(operator, left, right);
    default:
      return compare(operator, left, right);
  }
}

/**
 * Evaluates a parsed formula on `context.record`. Missing values, missing links, wrong value types,
 * division by zero and the like yield null, never an exception; only a failing loader or
 * system-setting resolver (an infrastructure failure) rejects.
 */
export async function evaluate(formula: Formula, context: FormulaContext): Promise<FormulaValue> {
  return new Evaluation(context).value(formula.ast);
}

type BinaryNode = Extract<FormulaNode, { kind: 'binary' }>;
type CallNode = Extract<FormulaNode, { kind: 'call' }>;
type UnaryNode = Extract<FormulaNode, { kind: 'unary' }>;

/**
 * One evaluation: each step continues at once when the step before it had its value, and only
 * through a promise after one that followed a relation. Each step writes out its own
 * `instanceof Promise` test rather than calling a helper that takes the continuation: such a
 * helper would make a closure per step on the synchronous path too, which is what this avoids.
 */
class Evaluation {
  private readonly self: Reached;

  constructor(private readonly context: FormulaContext) {
    this.self = new Reached([context.record], false);
  }

  value(node: FormulaNode): Pending<FormulaValue> {
    const evaluated = this.visit(node);
    return evaluated instanceof Promise ? evaluated.then(asValue) : asValue(evaluated);
  }

  private visit(node: FormulaNode): Pending<Evaluated> {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'identifier':
        return property(this.self, node.name);
      case 'member': {
        const object = this.visit(node.object);
        return object instanceof Promise
          ? object.then((reached) => memberOf(reached, node.property))
          : memberOf(object, node.property);
      }
      case 'unary': {
        const argument = this.value(node.argument);
        return argument instanceof Promise
          ? argument.then((resolved) => unary(node.operator, resolved))
          : unary(node.operator, argument);
      }
      case 'conditional': {
        const test = this.value(node.test);
        return test instanceof Promise
          ? test.then((resolved) => this.visit(isTruthy(resolved) ? node.consequent : node.alternate))
          : this.visit(isTruthy(test) ? node.consequent : node.alternate);
      }
      case 'binary': {
        const left = this.value(node.left);
        return left instanceof Promise
          ? left.then((resolved) => this.binary(node, resolved))
          : this.binary(node, left);
      }
      case 'call':
        return this.call(node);
    }
  }

  private binary(node: BinaryNode, left: FormulaValue): Pending<FormulaValue> {
    switch (node.operator) {
      case '&&':
        return isTruthy(left) ? this.value(node.right) : left;
      case '||':
        return isTruthy(left) ? left : this.value(node.right);
      case '??':
        return left !== null ? left : this.value(node.right);
    }
    const operator = node.operator;
    const right = this.value(node.right);
    return right instanceof Promise
      ? right.then((resolved) => combine(operator, left, resolved))
      : combine(operator, left, right);
  }

  private call(node: CallNode): Pending<FormulaValue> {
    const fn = functionNamed(node.callee);
    if (!fn) return null;
    if (node.callee === 'if') {
      const [test, consequent, alternate] = node.args;
      if (test === undefined) return null;
      const tested = this.value(test);
      return tested instanceof Promise
        ? tested.then((resolved) => this.branch(resolved, consequent, alternate))
        : this.branch(tested, consequent, alternate);
    }
    const args = this.argumentValues(node.args, []);
    return args instanceof Promise
      ? args.then((resolved) => fn.apply(resolved, this.context))
      : fn.apply(args, this.context);
  }

  private branch(
    test: FormulaValue,
    consequent: FormulaNode | undefined,
    alternate: FormulaNode | undefined,
  ): Pending<FormulaValue> {
    const branch = isTruthy(test) ? consequent : alternate;
    return branch === undefined ? null : this.value(branch);
  }

  /** The values of `nodes` from `args.length` on, appended to `args`, in order. */
  private argumentValues(nodes: readonly FormulaNode[], args: FormulaValue[]): Pending<FormulaValue[]> {
    for (let index = args.length; index < nodes.length; index += 1) {
      const argument = this.value(nodes[index]!);
      if (argument instanceof Promise) {
        return argument.then((resolved) => {
          args.push(resolved);
          return this.argumentValues(nodes, args);
        });
      }
      args.push(argument);
    }
    return args;
  }
}

function memberOf(object: Evaluated, name: string): Pending<Evaluated> {
  return object instanceof Reached ? property(object, name) : null;
}

function unary(operator: UnaryNode['operator'], argument: FormulaValue): FormulaValue {
  if (operator === '!') return !isTruthy(argument);
  const n = toNumber(argument);
  return n === null ? null : -n;
}
