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

async function property(from: Reached, name: string): Promise<Evaluated> {
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

/**
 * Evaluates a parsed formula on `context.record`. Missing values, missing links, wrong value types,
 * division by zero and the like yield null, never an exception; only a failing loader or
 * system-setting resolver (an infrastructure failure) rejects.
 */
export async function evaluate(formula: Formula, context: FormulaContext): Promise<FormulaValue> {
  const self = new Reached([context.record], false);

  const visit = async (node: FormulaNode): Promise<Evaluated> => {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'identifier':
        return property(self, node.name);
      case 'member': {
        const object = await visit(node.object);
        return object instanceof Reached ? property(object, node.property) : null;
      }
      case 'unary': {
        const argument = asValue(await visit(node.argument));
        if (node.operator === '!') return !isTruthy(argument);
        const n = toNumber(argument);
        return n === null ? null : -n;
      }
      case 'conditional':
        return isTruthy(await value(node.test)) ? visit(node.consequent) : visit(node.alternate);
      case 'binary':
        return binary(node);
      case 'call':
        return call(node);
    }
  };

  const value = async (node: FormulaNode): Promise<FormulaValue> => asValue(await visit(node));

  const binary = async (node: Extract<FormulaNode, { kind: 'binary' }>): Promise<FormulaValue> => {
    const left = await value(node.left);
    switch (node.operator) {
      case '&&':
        return isTruthy(left) ? value(node.right) : left;
      case '||':
        return isTruthy(left) ? left : value(node.right);
      case '??':
        return left !== null ? left : value(node.right);
    }
    const right = await value(node.right);
    switch (node.operator) {
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
        return arithmetic(node.operator, left, right);
      default:
        return compare(node.operator, left, right);
    }
  };

  const call = async (node: Extract<FormulaNode, { kind: 'call' }>): Promise<FormulaValue> => {
    const fn = functionNamed(node.callee);
    if (!fn) return null;
    if (node.callee === 'if') {
      const [test, consequent, alternate] = node.args;
      if (test === undefined) return null;
      const branch = isTruthy(await value(test)) ? consequent : alternate;
      return branch === undefined ? null : value(branch);
    }
    const args: FormulaValue[] = [];
    for (const arg of node.args) args.push(await value(arg));
    return fn.apply(args, context);
  };

  return value(formula.ast);
}
