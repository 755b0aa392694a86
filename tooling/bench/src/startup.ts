/**
 * `pnpm bench --startup [--starts 5]`: how long the api alone takes to start and how much memory it
 * holds when idle, run from its TypeScript sources through tsx (development, `pnpm start`) and as
 * the built JavaScript production runs (`node apps/api/dist/main.js`, after `pnpm build`). Each
 * start is on a fresh data directory: the time is from the process start to its `ODP_READY` line,
 * the memory its resident set (VmRSS) once it has been idle for a second. Figures are medians.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUILT_API, REPO_ROOT, SOURCE_API, residentMb, startChild } from './processes.js';

export interface StartupLaunch {
  readonly name: string;
  readonly script: string;
  /** Null when the launch was not measured (the built api is missing: run `pnpm build`). */
  readonly startMs: number | null;
  readonly idleRssMb: number | null;
  readonly problem: string | null;
}

export interface StartupBench {
  readonly starts: number;
  readonly loadBefore: readonly number[];
  readonly launches: readonly StartupLaunch[];
  /** Every launch was measured. */
  readonly complete: boolean;
}

const LAUNCHES = [
  { name: `node --import tsx ${SOURCE_API} (sources)`, script: SOURCE_API },
  { name: `node ${BUILT_API} (built)`, script: BUILT_API },
] as const;

/** How long a started api is left idle before its memory is read. */
const IDLE_MS = 1000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measureOnce(script: string): Promise<{ ms: number; rssMb: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-startup-'));
  try {
    const started = performance.now();
    const child = await startChild(script, { ODP_DATA_DIR: dataDir }, 'ODP_READY ');
    const ms = performance.now() - started;
    await sleep(IDLE_MS);
    const { rss } = residentMb(child.pid);
    await child.stop();
    return { ms, rssMb: rss };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function measureStartup(options: {
  starts: number;
  log: (line: string) => void;
}): Promise<StartupBench> {
  const loadBefore = os.loadavg();
  const launches: StartupLaunch[] = [];
  for (const { name, script } of LAUNCHES) {
    options.log(`  ${name}`);
    if (!existsSync(path.join(REPO_ROOT, script))) {
      const problem = `${script} is missing: run pnpm build`;
      launches.push({ name, script, startMs: null, idleRssMb: null, problem });
      continue;
    }
    const runs: { ms: number; rssMb: number }[] = [];
    for (let i = 0; i < options.starts; i += 1) runs.push(await measureOnce(script));
    launches.push({
      name,
      script,
      startMs: median(runs.map((run) => run.ms)),
      idleRssMb: median(runs.map((run) => run.rssMb)),
      problem: null,
    });
  }
  return {
    starts: options.starts,
    loadBefore,
    launches,
    complete: launches.every((l) => l.problem === null),
  };
}

export function startupTable(bench: StartupBench): string {
  const figure = (value: number | null) => (value === null ? '-' : value.toFixed(0));
  return [
    `The api alone, ${bench.starts} starts each; load average before ${bench.loadBefore.map((v) => v.toFixed(2)).join(' ')}`,
    '',
    '| launch | start ms (median) | idle RSS MB (median) | note |',
    '|---|---|---|---|',
    ...bench.launches.map(
      (launch) =>
        `| ${launch.name} | ${figure(launch.startMs)} | ${figure(launch.idleRssMb)} | ${launch.problem ?? ''} |`,
    ),
  ].join('\n');
}
