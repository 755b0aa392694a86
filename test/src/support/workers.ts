/**
 * Worker processes for the scale-out suites: `apps/worker` (what `pnpm --filter @odp/worker start`
 * runs) with the environment of an api started by `startServer` (same data directory and engines),
 * plus any extra variables.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { REPO_ROOT, entryArguments, ownRegistryDatabase } from './server.js';

/**
 * Generous: on a busy shared machine a start (tsx compiling the workspace) can take well over 20 s,
 * and how long it takes is not what the suites check.
 */
const READY_TIMEOUT_MS = 45_000;

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM (the job in hand is finished first); resolves the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash in the middle of whatever it does. */
  kill(): Promise<void>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts a worker; resolves once it prints `ODP_WORKER_READY`. */
export function startWorkerProcess(env: Readonly<Record<string, string>>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, entryArguments('apps/worker', 'main'), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env,
      // The registry of the api on the same data directory, when it lives on MongoDB.
      ...(env['ODP_DATA_DIR'] === undefined ? {} : ownRegistryDatabase(env['ODP_DATA_DIR'], env)),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const worker: WorkerProcess = {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited(child);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker not ready:\n${output}`));
    }, READY_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ODP_WORKER_READY')) {
        clearTimeout(timer);
        resolve(worker);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
}
