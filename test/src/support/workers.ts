/** Separate worker processes (`apps/worker`) for the scale-out suites; each stops with its owner's afterAll. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './server.js';

const WORKER_START_TIMEOUT_MS = 45_000;

/**
 * Starts `apps/worker` with `env` on top of this process's environment; resolves once it printed
 * ODP_WORKER_READY. The wait is generous: on a busy shared machine a start (tsx compiling the
 * workspace) can take well over 20 s, and how long it takes is not what the suites check.
 */
export function startWorkerProcess(
  env: Readonly<Record<string, string>>,
  started: ChildProcess[],
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'apps/worker/src/main.ts')],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker not ready:\n${output}`)),
      WORKER_START_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ODP_WORKER_READY')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
}

/** Resolves when the process has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));
}
