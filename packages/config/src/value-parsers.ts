import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import type { ConfigVariable, Read } from './variables.js';

/** The value of `name`; ConfigError saying it is required `because` of another setting when unset. */
export function required(read: Read, name: ConfigVariable, because: string): string {
  const value = read(name);
  if (value === null) throw new ConfigError(name, `is required when ${because}`);
  return value;
}

/**
 * An integer variable: `fallback` when unset, else digits only, from `min` to `max`. Without `max`,
 * any positive integer. `unit` names what it counts in the message ("a number of days").
 */
export function parseInteger(
  name: string,
  raw: string | null,
  fallback: number,
  range: { readonly min?: number; readonly max?: number; readonly unit?: string } = {},
): number {
  if (raw === null) return fallback;
  const { min = 1, max, unit } = range;
  const value = Number(raw);
  if (
    !/^\d+$/.test(raw) ||
    !Number.isSafeInteger(value) ||
    value < min ||
    (max !== undefined && value > max)
  ) {
    const expected =
      max === undefined
        ? 'a positive integer'
        : `${unit ? `a number of ${unit}` : 'an integer'} from ${min} to ${max}`;
    throw new ConfigError(name, `must be ${expected} (got "${raw}")`);
  }
  return value;
}

/** The range of millisecond settings of the worker and the renderers. */
export const MILLISECONDS = { min: 10, max: 86_400_000, unit: 'milliseconds' } as const;

/** One of `choices`; `fallback` when unset. */
export function parseChoice<T extends string>(
  name: string,
  raw: string | null,
  choices: readonly T[],
  fallback: T,
): T {
  if (raw === null) return fallback;
  const choice = choices.find((c) => c === raw);
  if (choice === undefined) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return choice;
}

/** Validates a URL; the value itself is never echoed because it may carry credentials. */
export function parseUrl(name: string, raw: string, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** A JSON object variable; ConfigError naming it when the value is not one. */
export function parseJsonObject(name: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(name, 'must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** The absolute path of a file the process can read; null when unset. */
export function readableFile(name: string, raw: string | null): string | null {
  if (raw === null) return null;
  const file = path.resolve(raw);
  try {
    readFileSync(file);
  } catch {
    throw new ConfigError(name, `cannot read ${file}`);
  }
  return file;
}
