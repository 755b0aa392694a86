/**
 * Child processes the benchmark measures: the platform's api and the two HTTP ceilings, each in
 * its own process on a free 127.0.0.1 port, so that each competes with the load generator alike.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@odp/testkit';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

/** A port nothing listens on (`@odp/testkit`), re-exported for the benchmark's modules. */
export { freePort };

export interface Child {
  readonly baseUrl: string;
  /** The rest of the ready line, after its prefix. */
  readonly ready: string;
  /** The process id (memory sampling). */
  readonly pid: number;
  /** The CPU time the process has used so far (user + system), in ms. */
  cpuMs(): number;
  /**
   * The bytes the process has handed to write calls so far (`wchar` of `/proc/<pid>/io`): its
   * database's log and checkpoints, its other files, and its output (the api's request log).
   */
  writtenBytes(): number;
  stop(): Promise<void>;
}

/** The api's entry point as production runs it: built JavaScript under plain node (deployment.md). */
export const BUILT_API = 'apps/api/dist/main.js';
/** The api's entry point from its TypeScript sources, through tsx (development, `pnpm start`). */
export const SOURCE_API = 'apps/api/src/main.ts';

/**
 * Compiles every package and app (`pnpm build`: turbo, which rebuilds only what changed) so that
 * {@link BUILT_API} is the JavaScript of the sources as they are now; throws with the build's
 * output when it fails.
 */
export function buildApi(log: (line: string) => void): string {
  log('Building the api (pnpm build)');
  const built = spawnSync('pnpm', ['build'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`pnpm build failed:\n${built.stdout}${built.stderr}`);
  return BUILT_API;
}

/**
 * Runs `node --import tsx <script>` (a `.ts` source; a built `.js` with plain node) with `env` and
 * waits until it prints a line starting with
 * `readyPrefix` (everything it prints is discarded afterwards: request logs are not measured).
 */
export async function startChild(
  script: string,
  env: Readonly<Record<string, string>>,
  readyPrefix: string,
): Promise<Child> {
  const port = await freePort();
  return startProcess({
    name: script,
    command: process.execPath,
    args: script.endsWith('.ts')
      ? ['--import', 'tsx', '--conditions=@odp/source', path.join(REPO_ROOT, script)]
      : [path.join(REPO_ROOT, script)],
    env: { ...env, PORT: String(port), ODP_BASE_URL: `http://127.0.0.1:${port}` },
    port,
    readyLine: (line) => (line.startsWith(readyPrefix) ? line.slice(readyPrefix.length).trim() : undefined),
  });
}

/**
 * Runs any program that serves HTTP on 127.0.0.1:`port` (the api, a peer it is measured beside)
 * and waits until `readyLine` accepts a line of its output (what it returns is the child's `ready`);
 * its later output is discarded.
 */
export async function startProcess(options: {
  /** For the errors: the script or program. */
  name: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  port: number;
  /** The ready part of a line that says the program is ready; undefined for any other line. */
  readyLine: (line: string) => string | undefined;
}): Promise<Child> {
  const { name, command, args, port, readyLine } = options;
  const child: ChildProcess = spawn(command, [...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        const ready = readyLine(line);
        if (ready === undefined) continue;
        clearTimeout(timer);
        resolve(ready);
        return;
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ready,
    pid: child.pid ?? 0,
    cpuMs: () => processCpuMs(child.pid ?? 0),
    writtenBytes: () => processWrittenBytes(child.pid ?? 0),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * User + system CPU time of a process and its descendants, in ms, from `/proc/<pid>/stat` (fields
 * 14-17: its own, and that of its children that ended) and its live children: the api processes
 * of `ODP_API_PROCESSES` and the isolated tasks count with the process that started them.
 */
function processCpuMs(pid: number): number {
  const measured = sumOverTree(pid, (process) => {
    const stat = readFileSync(`/proc/${process}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after it follow its closing parenthesis.
    const fields = stat.split(') ')[1]?.split(' ') ?? [];
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
    return { ms: (ticks * 1000) / USER_HZ };
  });
  return measured?.ms ?? 0;
}

/** Bytes handed to write calls by a process and its live descendants (`wchar`, `/proc/<pid>/io`). */
function processWrittenBytes(pid: number): number {
  const measured = sumOverTree(pid, (process) => {
    const line = readFileSync(`/proc/${process}/io`, 'utf8').match(/^wchar: (\d+)$/m);
    return { bytes: Number(line?.[1] ?? 0) };
  });
  return measured?.bytes ?? 0;
}

/**
 * `measure` of a process plus that of each of its live descendants, summed member by member. A
 * process that ended since its parent listed it counts 0 (its CPU time is now its parent's; its
 * memory is gone).
 */
function sumOverTree<T extends Record<string, number>>(pid: number, measure: (pid: number) => T): T | null {
  let own: T;
  try {
    own = measure(pid);
  } catch {
    return null;
  }
  const sum: Record<string, number> = { ...own };
  for (const child of childrenOf(pid)) {
    const measured = sumOverTree(child, measure);
    for (const key of Object.keys(sum)) sum[key] = (sum[key] ?? 0) + (measured?.[key] ?? 0);
  }
  return sum as T;
}

function childrenOf(pid: number): number[] {
  try {
    const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return listed.split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * A process's resident memory in MB: all of it (`VmRSS`), its own (`RssAnon`: heap, buffers), and
 * mapped file pages (`RssFile`: mostly the tenant's database read through SQLite's memory map,
 * page cache the kernel reclaims under pressure).
 */
export function residentMb(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** The memory of a process tree in MB, as the sums of the proportional set sizes of its processes. */
export interface TreeMemory {
  /** All of it (`Pss`). */
  readonly total: number;
  /** Its own memory (`Pss_Anon` + `Pss_Shmem`): heaps, buffers, SQLite's page caches, the WAL indexes. */
  readonly own: number;
  /**
   * Mapped file pages (`Pss_File`): mostly database pages read through SQLite's memory map, which
   * the kernel's file cache holds with or without the mapping and reclaims under pressure.
   */
  readonly mapped: number;
}

/**
 * The memory of a process and of its descendants: the sum of their proportional set sizes
 * (`/proc/<pid>/smaps_rollup`: each process's own pages, and its share of the pages it shares with
 * others, such as the database's memory map that every api process maps). The api processes of
 * `ODP_API_PROCESSES` and the isolated tasks count with the process that started them; shared
 * pages count once in all, as the machine holds them.
 */
export function treeMemoryMb(pid: number): TreeMemory {
  const measured = sumOverTree(pid, (process) => {
    const rollup = readFileSync(`/proc/${process}/smaps_rollup`, 'utf8');
    const mb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
    return { total: mb('Pss'), own: mb('Pss_Anon') + mb('Pss_Shmem'), mapped: mb('Pss_File') };
  });
  return measured ?? { total: 0, own: 0, mapped: 0 };
}
