import type { FormulaValue } from './values.js';
import {
  compareValues,
  flatValues,
  formatDateOnly,
  isDateOnly,
  isTruthy,
  toDate,
  toNumber,
  toText,
} from './values.js';

/** The static type of a formula value, as the type checker infers it. */
export type FormulaBaseType = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'time' | 'json' | 'any';
export interface FormulaType {
  readonly base: FormulaBaseType;
  readonly array: boolean;
}

/** What the evaluator needs from outside the object graph; every member is optional. */
export interface FormulaEnvironment {
  readonly tenantId?: string;
  readonly baseUrl?: string;
  /** E-mail of the account that caused the evaluation, when there is one. */
  readonly accountEmail?: string | null;
  /** The clock; the system clock when absent. */
  readonly now?: () => Date;
  /** `systemSetting('name')`: a `system.systemSetting` value or a decrypted `system.secretValue`. */
  readonly systemSetting?: (name: string) => Promise<string | null>;
}

export const SYS_INFO_KEYS = ['tenantId', 'baseUrl', 'now', 'today', 'accountEmail'] as const;
export const DATE_DIFF_UNITS = ['days', 'weeks', 'months', 'years', 'hours', 'minutes', 'seconds'] as const;

interface FunctionDef {
  readonly minArgs: number;
  readonly maxArgs: number;
  /** Result type from the argument types. */
  readonly type: (args: readonly FormulaType[]) => FormulaType;
  /** Literal string arguments that must be one of a fixed set, by argument index. */
  readonly choices?: Readonly<Record<number, readonly string[]>>;
  readonly apply: (
    args: readonly FormulaValue[],
    env: FormulaEnvironment,
  ) => FormulaValue | Promise<FormulaValue>;
}

const scalar = (base: FormulaBaseType): FormulaType => ({ base, array: false });
const fixed = (base: FormulaBaseType) => (): FormulaType => scalar(base);
/** The element type shared by the arguments, or `any` when they differ. */
const common = (args: readonly FormulaType[]): FormulaType => {
  const bases = new Set(args.map((a) => a.base));
  const [only] = bases;
  return scalar(bases.size === 1 && only !== undefined ? only : 'any');
};

const MS_PER_UNIT: Readonly<Record<string, number>> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 7 * 86_400_000,
};

function clock(env: FormulaEnvironment): Date {
  return env.now ? env.now() : new Date();
}

function mapText(transform: (text: string) => string) {
  return (args: readonly FormulaValue[]): FormulaValue => {
    const text = toText(args[0] ?? null);
    return text === null ? null : transform(text);
  };
}

function extreme(direction: 1 | -1) {
  return (args: readonly FormulaValue[]): FormulaValue => {
    let best: FormulaValue = null;
    for (const value of flatValues(args)) {
      if (best === null) best = value;
      else {
        const order = compareValues(value, best);
        if (order !== null && order * direction > 0) best = value;
      }
    }
    return best;
  };
}

function dateDiff(args: readonly FormulaValue[]): FormulaValue {
  const from = toDate(args[0] ?? null);
  const to = toDate(args[1] ?? null);
  const unit = args[2] === undefined ? 'days' : args[2];
  if (from === null || to === null || typeof unit !== 'string') return null;
  if (unit === 'months' || unit === 'years') {
    let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
    const dayOffset =
      to.getTime() - Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, from.getUTCDate());
    if (months > 0 && dayOffset < 0) months--;
    if (months < 0 && dayOffset > 0) months++;
    return unit === 'years' ? Math.trunc(months / 12) : months;
  }
  const ms = MS_PER_UNIT[unit];
  if (ms === undefined) return null;
  return Math.trunc((to.getTime() - from.getTime()) / ms);
}

function formatDate(args: readonly FormulaValue[]): FormulaValue {
  const date = toDate(args[0] ?? null);
  const pattern = args[1] === undefined ? 'yyyy-MM-dd' : args[1];
  if (date === null || typeof pattern !== 'string') return null;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const parts: Readonly<Record<string, string>> = {
    yyyy: pad(date.getUTCFullYear(), 4),
    MM: pad(date.getUTCMonth() + 1),
    dd: pad(date.getUTCDate()),
    HH: pad(date.getUTCHours()),
    mm: pad(date.getUTCMinutes()),
    ss: pad(date.getUTCSeconds()),
  };
  return pattern.replace(/yyyy|MM|dd|HH|mm|ss/g, (token) => parts[token] ?? token);
}

function addDays(args: readonly FormulaValue[]): FormulaValue {
  const input = args[0] ?? null;
  const date = toDate(input);
  const days = toNumber(args[1] ?? null);
  if (date === null || days === null) return null;
  const result = new Date(date.getTime() + Math.trunc(days) * 86_400_000);
  return isDateOnly(input) ? formatDateOnly(result) : result.toISOString();
}

/**
 * The built-in functions of model-format section 6. `if` is listed for its arity and type; the
 * evaluator evaluates only the chosen branch.
 */
export const FUNCTIONS: Readonly<Record<string, FunctionDef>> = {
  sysInfo: {
    minArgs: 1,
    maxArgs: 1,
    type: fixed('text'),
    choices: { 0: SYS_INFO_KEYS },
    apply: ([key], env) => {
      switch (key) {
        case 'tenantId':
          return env.tenantId ?? null;
        case 'baseUrl':
          return env.baseUrl ?? null;
        case 'now':
          return clock(env).toISOString();
        case 'today':
          return formatDateOnly(clock(env));
        case 'accountEmail':
          return env.accountEmail ?? null;
        default:
          return null;
      }
    },
  },
  systemSetting: {
    minArgs: 1,
    maxArgs: 1,
    type: fixed('text'),
    apply: async ([name], env) =>
      typeof name === 'string' && env.systemSetting ? await env.systemSetting(name) : null,
  },
  concat: {
    minArgs: 0,
    maxArgs: Infinity,
    type: fixed('text'),
    apply: (args) => args.map((a) => toText(a) ?? '').join(''),
  },
  upper: { minArgs: 1, maxArgs: 1, type: fixed('text'), apply: mapText((t) => t.toUpperCase()) },
  lower: { minArgs: 1, maxArgs: 1, type: fixed('text'), apply: mapText((t) => t.toLowerCase()) },
  trim: { minArgs: 1, maxArgs: 1, type: fixed('text'), apply: mapText((t) => t.trim()) },
  round: {
    minArgs: 1,
    maxArgs: 2,
    type: fixed('number'),
    apply: ([value, digits]) => {
      const n = toNumber(value ?? null);
      const d = digits === undefined ? 0 : toNumber(digits);
      if (n === null || d === null) return null;
      const factor = 10 ** Math.trunc(d);
      return Math.round((n + Math.sign(n) * Number.EPSILON) * factor) / factor;
    },
  },
  sum: {
    minArgs: 1,
    maxArgs: Infinity,
    type: fixed('number'),
    apply: (args) => flatValues(args).reduce<number>((total, v) => total + (toNumber(v) ?? 0), 0),
  },
  count: {
    minArgs: 1,
    maxArgs: Infinity,
    type: fixed('number'),
    apply: (args) => flatValues(args).length,
  },
  min: { minArgs: 1, maxArgs: Infinity, type: common, apply: extreme(-1) },
  max: { minArgs: 1, maxArgs: Infinity, type: common, apply: extreme(1) },
  coalesce: {
    minArgs: 1,
    maxArgs: Infinity,
    type: common,
    apply: (args) => args.find((a) => a !== null && !(Array.isArray(a) && a.length === 0)) ?? null,
  },
  if: {
    minArgs: 2,
    maxArgs: 3,
    type: (args) => common(args.slice(1)),
    apply: ([test, consequent, alternate]) =>
      isTruthy(test ?? null) ? (consequent ?? null) : (alternate ?? null),
  },
  today: { minArgs: 0, maxArgs: 0, type: fixed('date'), apply: (_args, env) => formatDateOnly(clock(env)) },
  now: { minArgs: 0, maxArgs: 0, type: fixed('datetime'), apply: (_args, env) => clock(env).toISOString() },
  addDays: { minArgs: 2, maxArgs: 2, type: (args) => scalar(args[0]?.base ?? 'date'), apply: addDays },
  dateDiff: {
    minArgs: 2,
    maxArgs: 3,
    type: fixed('number'),
    choices: { 2: DATE_DIFF_UNITS },
    apply: dateDiff,
  },
  formatDate: { minArgs: 1, maxArgs: 2, type: fixed('text'), apply: formatDate },
};

export function functionNamed(name: string): FunctionDef | undefined {
  return Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
}
