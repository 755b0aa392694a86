import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pnpmCommand } from './support/pnpm.js';
import { freePort, REPO_ROOT } from './support/server.js';

const pnpm = pnpmCommand();
if (pnpm === null) process.stderr.write('skipped: pnpm start: no pnpm on the PATH or in npm_execpath\n');
const describeWithPnpm = pnpm === null ? describe.skip : describe;

describeWithPnpm('pnpm start', () => {
  /**
   * The scenario that used to orphan the server: pnpm runs the script through `sh -c`, and a
   * SIGTERM sent to pnpm alone (as a process manager does) ended pnpm and the shell but left the
   * server running. Now the script execs node, so the signal reaches the server, which shuts down.
   */
  it.each(['SIGTERM', 'SIGINT'] as const)('%s to the pnpm process stops the server', async (signal) => {
    const [command = 'pnpm', ...prefix] = pnpm ?? [];
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-start-'));
    const port = await freePort();
    const child = spawn(command, [...prefix, 'start'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), ODP_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      child.kill(signal);
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
      expect(output).toContain('"message":"shutting down"');
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
