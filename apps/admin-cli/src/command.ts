/**
 * The vocabulary of `odp` commands: what a command runs against and returns, its usage errors and
 * the option readers every command shares.
 */
import { NotFoundError } from '@odp/core';
import type { PlatformRegistry, TenantRecord } from '@odp/core';
import type { Config } from '@odp/config';

/** What a command runs against: the same configuration and registry as the api. */
export interface CommandContext {
  readonly config: Config;
  readonly registry: PlatformRegistry;
  readonly now: () => Date;
  /** Directory relative paths given on the command line resolve against. */
  readonly cwd: string;
  /** Progress of long commands goes here (stderr), never to the `--json` output. */
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal: a progress bar is then redrawn in place. */
  readonly stderrIsTty: boolean;
}

/** A command's result: `json` is printed with --json (one object), `text` otherwise. */
export interface CommandResult {
  readonly json: Readonly<Record<string, unknown>>;
  readonly text: string;
}

type Values = Readonly<Record<string, string | undefined>>;

export interface Command {
  /** One usage line, shown by `odp help` and after a usage error. */
  readonly usage: string;
  /** String options of the command (every option takes a value); `--json` is handled by the cli. */
  readonly options: readonly string[];
  /** The name its one positional argument is handed in `values` under; none when absent. */
  readonly positional?: string;
  run(context: CommandContext, values: Values): Promise<CommandResult>;
}

/** A wrong command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function need(values: Values, option: string): string {
  const value = values[option];
  if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
  return value;
}

/** The tenant `id`; NotFoundError (exit 1) when there is none. */
export async function existingTenant(registry: PlatformRegistry, id: string): Promise<TenantRecord> {
  const tenant = await registry.getTenant(id);
  if (tenant === null) throw new NotFoundError(`No tenant ${id}.`);
  return tenant;
}
