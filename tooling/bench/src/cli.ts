/**
 * `pnpm bench --cli [--calls 15]`: the wall-clock time of one `odp` call as a user types it,
 * end to end (process start to exit), against a data directory holding one tenant. Each way of
 * starting the command runs `odp tenant list --json` `calls` times, one after another; the figure
 * is the median, printed with the load average of the machine before and after (the time of a
 * call on a shared machine says little without it). Target: the median of `bin/odp` under 1 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';

export interface CliLaunch {
  readonly name: string;
  /** `unavailable`: its program is not installed here (pnpm), so it was not measured. */
  readonly state: 'measured' | 'unavailable' | 'failed';
  /** Median, fastest and slowest call in milliseconds; null when the launch could not run here. */
  readonly medianMs: number | null;
  readonly minMs: number | null;
  readonly maxMs: number | null;
  /** Why the launch was not measured, or the first failed call's error output. */
  readonly problem: string | null;
}

export interface CliBench {
  readonly calls: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly launches: readonly CliLaunch[];
  /** Every call of every measured launch printed the tenant and exited 0. */
  readonly complete: boolean;
  readonly target: { readonly description: string; readonly met: boolean };
}

const LAUNCHES: readonly { name: string; command: string; args: readonly string[] }[] = [
  { name: 'bin/odp (compiled, the documented way)', command: path.join(REPO_ROOT, 'bin/odp'), args: [] },
  { name: 'pnpm odp', command: 'pnpm', args: ['odp'] },
  {
    name: 'node --import tsx (the TypeScript sources)',
    command: process.execPath,
    args: ['--import', 'tsx', '--conditions=@odp/source', 'apps/admin-cli/src/main.ts'],
  },
  // Measured once `pnpm build` has compiled it: how production runs the command.
  ...(existsSync(path.join(REPO_ROOT, 'apps/admin-cli/dist/main.js'))
    ? [
        {
          name: 'node apps/admin-cli/dist/main.js (built)',
          command: process.execPath,
          args: ['apps/admin-cli/dist/main.js'],
        },
      ]
    : []),
];

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function timedCall(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const result = spawnSync(command, [...args, 'tenant', 'list', '--json'], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
  });
  return { ms: performance.now() - started, result };
}

export function measureCli(options: { calls: number; log: (line: string) => void }): CliBench {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-cli-'));
  const env = { ...process.env, ODP_DATA_DIR: dataDir };
  try {
    // One tenant to list; the first call also compiles the command when its sources changed.
    const created = spawnSync(
      path.join(REPO_ROOT, 'bin/odp'),
      ['tenant', 'create', '--name', 'Bench', '--json'],
      {
        cwd: REPO_ROOT,
        env,
        encoding: 'utf8',
      },
    );
    if (created.status !== 0) throw new Error(`odp tenant create failed: ${created.stderr}`);
    const loadBefore = os.loadavg();
    const launches = LAUNCHES.map(({ name, command, args }): CliLaunch => {
      options.log(`  ${name}`);
      const times: number[] = [];
      for (let i = 0; i < options.calls; i += 1) {
        const { ms, result } = timedCall(command, args, env);
        const listed = result.status === 0 && result.stdout.includes('"Bench"');
        if (result.error !== undefined || !listed) {
          const { error } = result;
          return {
            name,
            state: error === undefined ? 'failed' : 'unavailable',
            medianMs: null,
            minMs: null,
            maxMs: null,
            problem: error === undefined ? result.stderr : `${command} could not run: ${error.message}`,
          };
        }
        times.push(ms);
      }
      return {
        name,
        state: 'measured',
        medianMs: median(times),
        minMs: Math.min(...times),
        maxMs: Math.max(...times),
        problem: null,
      };
    });
    const launcher = launches[0]!;
    return {
      calls: options.calls,
      loadBefore,
      loadAfter: os.loadavg(),
      launches,
      complete: launches[0]!.state === 'measured' && launches.every((launch) => launch.state !== 'failed'),
      target: {
        description: 'median of a bin/odp call under 1000 ms',
        met: launcher.medianMs !== null && launcher.medianMs < 1000,
      },
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function cliTable(bench: CliBench): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const ms = (value: number | null) => (value === null ? '-' : value.toFixed(0));
  return [
    `odp tenant list --json, ${bench.calls} calls each; load average before ${load(bench.loadBefore)}, after ${load(bench.loadAfter)}`,
    '',
    '| launch | median ms | fastest ms | slowest ms | note |',
    '|---|---|---|---|---|',
    ...bench.launches.map(
      (launch) =>
        `| ${launch.name} | ${ms(launch.medianMs)} | ${ms(launch.minMs)} | ${ms(launch.maxMs)} | ` +
        `${(launch.problem ?? '').split('\n')[0]} |`,
    ),
    '',
    `${bench.target.description}: ${bench.target.met ? 'met' : 'NOT met'}`,
  ].join('\n');
}
