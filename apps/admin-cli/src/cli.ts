import { parseArgs } from 'node:util';
import { isAppError, sharedRegistry } from '@odp/core';
import type { Coordination, PlatformRegistry } from '@odp/core';
import { ConfigError, loadConfig } from '@odp/config';
import { openPlatformRegistry } from '@odp/platform/tenant-stores';
import { openOnRedis } from '@odp/platform/redis';
import { COMMANDS, parseArgsOptions, UsageError } from './commands.js';
import type { Command } from './commands.js';

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress bars are then redrawn in place); false when absent. */
  readonly stderrIsTty?: boolean;
}

/** Exit codes: 0 done, 1 the request failed (unknown tenant, conflict, ...), 2 bad command line or configuration. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first = '', second = ''] = argv;
  const twoWords = `${first} ${second}`;
  const [name, command] =
    COMMANDS[twoWords] !== undefined ? [twoWords, COMMANDS[twoWords]] : [first, COMMANDS[first]];
  if (command === undefined) {
    const help = `usage:\n${Object.values(COMMANDS)
      .map((c) => `  ${c.usage}`)
      .join('\n')}\nEvery command takes --json to print one JSON object.\n`;
    if (['', 'help', '--help', '--json'].includes(first)) {
      // `odp help --json` too: every command answers one JSON object when asked.
      const commands = Object.entries(COMMANDS).map(([words, c]) => ({ command: words, usage: c.usage }));
      io.stdout(argv.includes('--json') ? JSON.stringify({ commands }) + '\n' : help);
      return 0;
    }
    io.stderr(
      `odp: unknown command "${argv
        .filter((a) => !a.startsWith('-'))
        .slice(0, 2)
        .join(' ')}"\n${help}`,
    );
    return 2;
  }
  return runCommand(command, argv.slice(name.split(' ').length), io);
}

async function runCommand(command: Command, args: readonly string[], io: CliIo): Promise<number> {
  let values: Readonly<Record<string, unknown>>;
  try {
    const parsed = parseArgs({
      args: [...args],
      options: parseArgsOptions(command),
      strict: true,
      allowPositionals: command.positional !== undefined,
    });
    values = { ...parsed.values, ...positionalOf(command, parsed.positionals) };
  } catch (error) {
    io.stderr(`odp: ${error instanceof Error ? error.message : String(error)}\nusage: ${command.usage}\n`);
    return 2;
  }
  const json = values['json'] === true;
  const strings = Object.fromEntries(
    Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  let registry: PlatformRegistry | undefined;
  let coordination: Coordination | undefined;
  try {
    const config = loadConfig(io.env);
    // With ODP_REDIS_URL, changes are announced to the running api instances (sharedRegistry).
    if (config.redisUrl !== null) coordination = await openCoordination(config.redisUrl);
    const store = await openPlatformRegistry(config);
    registry = coordination === undefined ? store : sharedRegistry(store, coordination.invalidations);
    const result = await command.run(
      {
        config,
        registry,
        now: () => new Date(),
        cwd: io.cwd,
        stderr: io.stderr,
        stderrIsTty: io.stderrIsTty ?? false,
      },
      strings,
    );
    io.stdout(json ? JSON.stringify(result.json) + '\n' : result.text + '\n');
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`odp: ${error.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`odp: configuration error: ${error.message}\n`);
      return 2;
    }
    if (isAppError(error)) {
      io.stderr(`odp: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await registry?.close();
    await coordination?.close();
  }
}

/** The command's one positional argument under its name; a usage error when more are given. */
function positionalOf(command: Command, positionals: readonly string[]): Record<string, string> {
  if (command.positional === undefined || positionals.length === 0) return {};
  if (positionals.length > 1) throw new Error(`one ${command.positional.toUpperCase()} expected`);
  return { [command.positional]: positionals[0] as string };
}

/** The coordination of `ODP_REDIS_URL`, through which registry changes reach the running api instances. */
function openCoordination(redisUrl: string): Promise<Coordination> {
  return openOnRedis(({ openRedisCoordination }) => openRedisCoordination(redisUrl));
}
