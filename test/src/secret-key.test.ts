/**
 * A restart with another ODP_SECRET_KEY fails closed (docs/worker.md, "Rotation of ODP_SECRET_KEY"):
 * the real server, started twice over one data directory, refuses the second key with one start-up
 * line naming the variable and a non-zero exit, instead of serving with every stored secret read as
 * null. `odp secret-key accept` records a deliberately rotated key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOdp, startServer } from './support/server.js';

const FIRST_KEY = 'the-first-secret-key-of-this-deployment-0001';
const SECOND_KEY = 'another-secret-key-of-this-deployment-00002';

let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-secret-key-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Why a start over the data directory with `key` failed, or null when it started (then stopped). */
async function startFailure(key: string): Promise<string | null> {
  try {
    const server = await startServer({ dataDir, env: { ODP_SECRET_KEY: key } });
    await server.stop();
    return null;
  } catch (error) {
    return String(error);
  }
}

it('refuses to start with another key once secrets are stored, naming ODP_SECRET_KEY', async () => {
  const server = await startServer({ dataDir, env: { ODP_SECRET_KEY: FIRST_KEY } });
  try {
    const stored = await fetch(`${server.baseUrl}/system/${server.tenantId}/secretValues`, {
      method: 'POST',
      headers: { 'X-API-Key': server.systemKey ?? '', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'webhookToken', secretValue: 'not-for-anyone' }),
    });
    expect(stored.status).toBe(201);
  } finally {
    await server.stop();
  }

  const failure = await startFailure(SECOND_KEY);
  expect(failure).toMatch(/server exited with 2 before it was ready/);
  const lines = (failure ?? '').split('\n').filter((line) => line.startsWith('odp: '));
  expect(lines).toEqual([
    expect.stringMatching(/^odp: configuration error: ODP_SECRET_KEY: is not the key the stored secrets/),
  ]);
  expect(failure).not.toMatch(/\n\s+at /); // no stack trace
  expect(failure).not.toContain(SECOND_KEY);
  expect(failure).not.toContain(FIRST_KEY);

  expect(await startFailure(FIRST_KEY)).toBeNull();
});

it('starts with a rotated key once `odp secret-key accept` recorded it, and then refuses the old one', async () => {
  const env = { ODP_DATA_DIR: dataDir, ODP_SECRET_KEY: SECOND_KEY };
  const accepted = await runOdp(env, ['secret-key', 'accept', '--json']);
  expect({ code: accepted.code, stdout: JSON.parse(accepted.stdout) as unknown }).toEqual({
    code: 0,
    stdout: { accepted: true },
  });
  expect(await startFailure(SECOND_KEY)).toBeNull();
  expect(await startFailure(FIRST_KEY)).toMatch(/ODP_SECRET_KEY: is not the key/);
});
