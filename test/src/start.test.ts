import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pnpmCommand } from './support/pnpm.js';
import { freePort, REPO_ROOT } from './support/server.js';

const pnpm = pnpmCommand();
if (pnpm === null) process.stderr.write('skipped: pnpm start: no pnpm on the PATH or in npm_execpath\n');
const describeWithPnpm = pnpm === null ? describe.skip : describe;

/** Whether any process of the process group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describeWithPnpm('pnpm start', () => {
  /**
   * The scenario that used to orphan the server: pnpm runs the script through `sh -c`, and a
   * SIGTERM sent to pnpm alone (as a process manager does) ended pnpm and the shell but left the
   * server running. Now the script execs node, so the signal reaches the server, which shuts down.
   * Ctrl-C in a terminal sends SIGINT to the whole foreground process group (pnpm and the server
   * at once). pnpm runs in a process group of its own here, so "no orphan" is checked on the
   * processes themselves: once pnpm has exited, no process of its group may be left.
   */
  it.each([
    ['SIGTERM to the pnpm process (a process manager)', 'SIGTERM', 'pnpm'],
    ['SIGINT to the pnpm process', 'SIGINT', 'pnpm'],
    ['Ctrl-C (SIGINT to the process group)', 'SIGINT', 'group'],
  ] as const)('%s stops the server and leaves no process', async (_title, signal, target) => {
    const [command = 'pnpm', ...prefix] = pnpm ?? [];
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-start-'));
    const port = await freePort();
    const child = spawn(command, [...prefix, 'start'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), ODP_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pgid = child.pid;
    if (pgid === undefined) throw new Error('pnpm start did not start');
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 25_000);
        child.stdout.on('data', () => {
          if (output.includes('ODP_READY')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (target === 'group') process.kill(-pgid, signal);
      else child.kill(signal);
      await exited;
      // The server is gone once its port refuses connections; an orphan would still answer.
      const deadline = Date.now() + 10_000;
      let answered = true;
      while (answered && Date.now() < deadline) {
        answered = await fetch(`http://127.0.0.1:${port}/health`).then(
          () => true,
          () => false,
        );
        if (answered) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(answered).toBe(false);
      while (groupAlive(pgid) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(groupAlive(pgid)).toBe(false);
      expect(output).toContain('"message":"shutting down"');
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
