import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlitePlatformRegistry } from './registry.js';

/** An acknowledged write survives a process killed without any chance to flush or close. */
describe('platform store durability', () => {
  it('keeps a write acknowledged before SIGKILL', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-durability-'));
    const file = path.join(dir, 'platform.sqlite');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@odp/source', path.join(__dirname, 'durability.child.ts'), file],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const tenantId = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /ACK (\S+)\n/.exec(out);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const store = openSqlitePlatformRegistry(file);
      expect(await store.getTenant(tenantId)).toMatchObject({ id: tenantId, name: 'durable' });
      await store.close();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
