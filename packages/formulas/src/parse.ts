import type { Formula, FormulaNode } from '@odp/core';

/** Longest formula source accepted, in characters. Longer input is refused before tokenizing. */
export const MAX_FORMULA_LENGTH = 10_000;
/** Deepest syntax tree accepted (nesting of parentheses, operators, calls and member access). */
export const MAX_FORMULA_DEPTH = 64;

/** A formula that cannot be parsed; `position` is the 0-based character offset of the problem. */
export class FormulaSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'FormulaSyntaxError';
  }
}

type TokenType = 'number' | 'string' | 'name' | 'punct' | 'end';

interface Token {
  readonly type: TokenType;
  readonly text: string;
  readonly value?: string | number;
  readonly position: number;
}

/** Punctuators, longest first so that `<=` wins over `<`. */
const PUNCTUATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '?',
  ':',
  '(',
  ')',
  ',',
  '.',
];

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (DIGIT.test(ch) || (ch === '.' && DIGIT.test(source[i + 1] ?? ''))) {
      while (i < source.length && DIGIT.test(source[i] as string)) i++;
      if (source[i] === '.') {
        i++;
        while (i < source.length && DIGIT.test(source[i] as string)) i++;
      }
      if (source[i] === 'e' || source[i] === 'E') {
        i++;
        if (source[i] === '+' || source[i] === '-') i++;
        if (!DIGIT.test(source[i] ?? '')) throw new FormulaSyntaxError('Malformed number', start);
        while (i < source.length && DIGIT.test(source[i] as string)) i++;
      }
      const text = source.slice(start, i);
      tokens.push({ type: 'number', text, value: Number(text), position: start });
      continue;
    }
    if (ch === '"' || ch === "'") {
      i++;
      let value = '';
      for (;;) {
        if (i >= source.length) throw new FormulaSyntaxError('Unterminated string literal', start);
        const c = source[i] as string;
        if (c === ch) break;
        if (c === '\\') {
          const next = source[i + 1];
          if (next === undefined) throw new FormulaSyntaxError('Unterminated string literal', start);
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      i++;
      tokens.push({ type: 'string', text: source.slice(start, i), value, position: start });
      continue;
    }
    if (NAME_START.test(ch)) {
      while (i < source.length && NAME_PART.test(source[i] as string)) i++;
      tokens.push({ type: 'name', text: source.slice(start, i), position: start });
      continue;
    }
    const punct = PUNCTUATORS.find((p) => source.startsWith(p, i));
    if (punct === undefined) throw new FormulaSyntaxError(`Unexpected character '${ch}'`, start);
    i += punct.length;
    tokens.push({ type: 'punct', text: punct, position: start });
  }
  tokens.push({ type: 'end', text: '', position: source.length });
  return tokens;
}

type BinaryOperator = Extract<FormulaNode, { kind: 'binary' }>['operator'];

/** Binding power of each binary operator (higher binds tighter); `?:` is handled at power 1. */
const BINARY_POWER: Readonly<Record<BinaryOperator, number>> = {
  '??': 2,
  '||': 3,
  '&&': 4,
  '==': 5,
  '!=': 5,
  '<': 6,
  '<=': 6,
  '>': 6,
  '>=': 6,
  '+': 7,
  '-': 7,
  '*': 8,
  '/': 8,
  '%': 8,
};
const CONDITIONAL_POWER = 1;
const UNARY_POWER = 9;

function isBinaryOperator(text: string): text is BinaryOperator {
  return Object.hasOwn(BINARY_POWER, text);
}

/** A node with the height of its subtree, so depth is bounded however the tree was built. */
interface Parsed {
  readonly node: FormulaNode;
  readonly depth: number;
}

/** Pratt parser over the token list. Recursion is bounded by MAX_FORMULA_DEPTH. */
class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseAll(): FormulaNode {
    const result = this.expression(0, 0);
    const token = this.peek();
    if (token.type !== 'end') throw new FormulaSyntaxError(`Unexpected '${token.text}'`, token.position);
    return result.node;
  }

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.index++;
    return token;
  }

  private expect(text: string): void {
    const token = this.next();
    if (token.type !== 'punct' || token.text !== text) {
      const found = token.type === 'end' ? 'end of formula' : `'${token.text}'`;
      throw new FormulaSyntaxError(`Expected '${text}' but found ${found}`, token.position);
    }
  }

  private make(node: FormulaNode, children: readonly Parsed[], position: number): Parsed {
    const depth = 1 + Math.max(0, ...children.map((c) => c.depth));
    if (depth > MAX_FORMULA_DEPTH) {
      throw new FormulaSyntaxError(`Formula nests deeper than ${MAX_FORMULA_DEPTH} levels`, position);
    }
    return { node, depth };
  }

  private expression(minPower: number, nesting: number): Parsed {
    if (nesting > MAX_FORMULA_DEPTH) {
      throw new FormulaSyntaxError(
        `Formula nests deeper than ${MAX_FORMULA_DEPTH} levels`,
        this.peek().position,
      );
    }
    let left = this.prefix(nesting);
    for (;;) {
      const token = this.peek();
      if (token.type !== 'punct') break;
      if (token.text === '?' && minPower <= CONDITIONAL_POWER) {
        this.next();
        const consequent = this.expression(0, nesting + 1);
        this.expect(':');
        const alternate = this.expression(CONDITIONAL_POWER, nesting + 1);
        left = this.make(
          { kind: 'conditional', test: left.node, consequent: consequent.node, alternate: alternate.node },
          [left, consequent, alternate],
          token.position,
        );
        continue;
      }
      if (!isBinaryOperator(token.text)) break;
      const power = BINARY_POWER[token.text];
      if (power <= minPower) break;
      this.next();
      const right = this.expression(power, nesting + 1);
      left = this.make(
        { kind: 'binary', operator: token.text, left: left.node, right: right.node },
        [left, right],
        token.position,
      );
    }
    return left;
  }

  private prefix(nesting: number): Parsed {
    const token = this.next();
    let result: Parsed;
    switch (token.type) {
      case 'number':
      case 'string':
        result = this.make({ kind: 'literal', value: token.value as string | number }, [], token.position);
        break;
      case 'name':
        result = this.name(token, nesting);
        break;
      case 'punct':
        if (token.text === '(') {
          result = this.expression(0, nesting + 1);
          this.expect(')');
        } else if (token.text === '!' || token.text === '-') {
          const argument = this.expression(UNARY_POWER, nesting + 1);
          result = this.make(
            { kind: 'unary', operator: token.text, argument: argument.node },
            [argument],
            token.position,
          );
        } else {
          throw new FormulaSyntaxError(`Unexpected '${token.text}'`, token.position);
        }
        break;
      case 'end':
        throw new FormulaSyntaxError('Unexpected end of formula', token.position);
    }
    return this.postfix(result);
  }

  private name(token: Token, nesting: number): Parsed {
    switch (token.text) {
      case 'true':
        return this.make({ kind: 'literal', value: true }, [], token.position);
      case 'false':
        return this.make({ kind: 'literal', value: false }, [], token.position);
      case 'null':
        return this.make({ kind: 'literal', value: null }, [], token.position);
    }
    const open = this.peek();
    if (open.type !== 'punct' || open.text !== '(') {
      return this.make({ kind: 'identifier', name: token.text }, [], token.position);
    }
    this.next();
    const args: Parsed[] = [];
    const close = this.peek();
    if (!(close.type === 'punct' && close.text === ')')) {
      for (;;) {
        args.push(this.expression(0, nesting + 1));
        const separator = this.peek();
        if (separator.type === 'punct' && separator.text === ',') {
          this.next();
          continue;
        }
        break;
      }
    }
    this.expect(')');
    return this.make(
      { kind: 'call', callee: token.text, args: args.map((a) => a.node) },
      args,
      token.position,
    );
  }

  private postfix(result: Parsed): Parsed {
    let current = result;
    for (;;) {
      const token = this.peek();
      if (token.type === 'punct' && token.text === '.') {
        this.next();
        const property = this.next();
        if (property.type !== 'name') {
          throw new FormulaSyntaxError('Expected a field or relation name after "."', property.position);
        }
        current = this.make(
          { kind: 'member', object: current.node, property: property.text },
          [current],
          property.position,
        );
        continue;
      }
      if (token.type === 'punct' && token.text === '(') {
        throw new FormulaSyntaxError('Only the built-in functions can be called', token.position);
      }
      return current;
    }
  }
}

/**
 * Parses a formula of the model (model-format section 6). Throws FormulaSyntaxError for anything that
 * is not in the grammar, for sources longer than MAX_FORMULA_LENGTH and for trees deeper than
 * MAX_FORMULA_DEPTH; it never evaluates anything.
 */
export function parseFormula(source: string): Formula {
  if (source.length > MAX_FORMULA_LENGTH) {
    throw new FormulaSyntaxError(
      `Formula is longer than ${MAX_FORMULA_LENGTH} characters (${source.length})`,
      MAX_FORMULA_LENGTH,
    );
  }
  const ast = new Parser(tokenize(source)).parseAll();
  return { source, ast };
}
