import type { ClassDef, DataType, Formula, FormulaNode } from '@odp/core';
import type { FormulaBaseType, FormulaType } from './functions.js';
import { functionNamed } from './functions.js';

/** Properties every object has besides its fields (model-format section 6). */
export const SYSTEM_IDENTIFIERS: Readonly<Record<string, FormulaType>> = {
  _href: { base: 'text', array: false },
  _id: { base: 'text', array: false },
  _classes: { base: 'text', array: true },
  _creationDate: { base: 'datetime', array: false },
  _modificationDate: { base: 'datetime', array: false },
};

const BASE_OF_TYPE: Readonly<Record<DataType, FormulaBaseType>> = {
  TEXT: 'text',
  TEXTBLOCK: 'text',
  LONGTEXT: 'text',
  EMAIL: 'text',
  LIST: 'text',
  SECRET: 'text',
  INTEGER: 'number',
  DECIMAL: 'number',
  CURRENCY: 'number',
  PERCENTAGE: 'number',
  BOOLEAN: 'boolean',
  DATE: 'date',
  DATETIME: 'datetime',
  TIME: 'time',
  JSON: 'json',
  ARRAY: 'json',
  FILE: 'json',
  IMAGE: 'json',
};

/** The formula's base type that a field of this data type holds. */
export function baseTypeOf(type: DataType): FormulaBaseType {
  return BASE_OF_TYPE[type];
}

/** The classes a formula can see; a Model's `classes` map qualifies. */
export type FormulaClasses = ReadonlyMap<string, Pick<ClassDef, 'name' | 'fields' | 'relations'>>;

export interface FormulaCheck {
  /** Inferred result type; `any` where it cannot be known. */
  readonly type: FormulaType;
  /** Human-readable problems; empty when the formula is valid for the class. */
  readonly errors: readonly string[];
}

/** What an expression denotes while checking: a value, or objects reached through relations. */
type Denotation =
  | { readonly kind: 'value'; readonly type: FormulaType }
  | { readonly kind: 'objects'; readonly className: string; readonly array: boolean };

const ANY: FormulaType = { base: 'any', array: false };
const LITERAL_TYPES: Readonly<Record<string, FormulaBaseType>> = {
  string: 'text',
  number: 'number',
  boolean: 'boolean',
};

function asValue(d: Denotation): FormulaType {
  return d.kind === 'value' ? d.type : { base: 'text', array: d.array };
}

/**
 * Checks a parsed formula against the class it is evaluated on: every identifier must be a field,
 * relation (forward or inverse) or system property of the class reached, every call a built-in
 * function with a fitting number of arguments, and fixed-choice arguments (sysInfo keys, dateDiff
 * units) one of their choices when given literally.
 */
export function checkFormula(formula: Formula, classes: FormulaClasses, className: string): FormulaCheck {
  const errors: string[] = [];

  const property = (ofClass: string, name: string, array: boolean): Denotation => {
    const system = SYSTEM_IDENTIFIERS[name];
    if (system) return { kind: 'value', type: { base: system.base, array: array || system.array } };
    const cls = classes.get(ofClass);
    const field = cls?.fields.get(name);
    if (field)
      return { kind: 'value', type: { base: baseTypeOf(field.type), array: array || field.multiple } };
    const relation = cls?.relations.get(name);
    if (relation)
      return { kind: 'objects', className: relation.otherClass, array: array || relation.multiple };
    errors.push(`Unknown field or relation '${name}' on class ${ofClass}`);
    return { kind: 'value', type: ANY };
  };

  const visit = (node: FormulaNode): Denotation => {
    switch (node.kind) {
      case 'literal':
        return {
          kind: 'value',
          type: {
            base: node.value === null ? 'any' : (LITERAL_TYPES[typeof node.value] ?? 'any'),
            array: false,
          },
        };
      case 'identifier':
        return property(className, node.name, false);
      case 'member': {
        const object = visit(node.object);
        if (object.kind === 'objects') return property(object.className, node.property, object.array);
        if (object.type.base !== 'any') {
          errors.push(`Cannot read '${node.property}': the expression before it is not a relation`);
        }
        return { kind: 'value', type: ANY };
      }
      case 'call':
        return { kind: 'value', type: call(node) };
      case 'unary':
        visit(node.argument);
        return { kind: 'value', type: { base: node.operator === '!' ? 'boolean' : 'number', array: false } };
      case 'binary': {
        const left = asValue(visit(node.left));
        const right = asValue(visit(node.right));
        return { kind: 'value', type: binaryType(node.operator, left, right) };
      }
      case 'conditional': {
        visit(node.test);
        const a = asValue(visit(node.consequent));
        const b = asValue(visit(node.alternate));
        return { kind: 'value', type: a.base === b.base && a.array === b.array ? a : ANY };
      }
    }
  };

  const call = (node: Extract<FormulaNode, { kind: 'call' }>): FormulaType => {
    const args = node.args.map((a) => asValue(visit(a)));
    const fn = functionNamed(node.callee);
    if (!fn) {
      errors.push(`Unknown function '${node.callee}'`);
      return ANY;
    }
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const expected =
        fn.minArgs === fn.maxArgs
          ? `${fn.minArgs}`
          : fn.maxArgs === Infinity
            ? `at least ${fn.minArgs}`
            : `${fn.minArgs} to ${fn.maxArgs}`;
      errors.push(`Function '${node.callee}' takes ${expected} argument(s), got ${args.length}`);
    }
    for (const [index, choices] of Object.entries(fn.choices ?? {})) {
      const arg = node.args[Number(index)];
      if (arg?.kind === 'literal' && typeof arg.value === 'string' && !choices.includes(arg.value)) {
        errors.push(
          `Function '${node.callee}' does not know '${arg.value}'; expected one of ${choices.join(', ')}`,
        );
      }
    }
    return fn.type(args);
  };

  const result = asValue(visit(formula.ast));
  return { type: result, errors };
}

function binaryType(
  operator: Extract<FormulaNode, { kind: 'binary' }>['operator'],
  left: FormulaType,
  right: FormulaType,
): FormulaType {
  switch (operator) {
    case '+':
      if (left.base === 'text' || right.base === 'text') return { base: 'text', array: false };
      return { base: left.base === 'any' || right.base === 'any' ? 'any' : 'number', array: false };
    case '-':
    case '*':
    case '/':
    case '%':
      return { base: 'number', array: false };
    case '??':
    case '||':
    case '&&':
      return left.base === right.base ? { base: left.base, array: false } : ANY;
    default:
      return { base: 'boolean', array: false };
  }
}
