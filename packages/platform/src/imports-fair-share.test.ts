/**
 * An import's row writes take their tenant's turns in the process's fair share (platform.ts,
 * `spreadsheetImports`): on the real platform (SQLite in a temp directory), an import of a CSV file
 * writes every row and leaves its tenant charged for that work, as its requests would be.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@odp/config';
import type { Account } from '@odp/core';
import { openPlatform } from './platform.js';
import type { Platform } from './platform.js';

const EXAMPLES = path.resolve(__dirname, '../../../examples/models');
const ROWS = 40;
const BOUNDARY = 'odp-import-boundary';

let dir: string;
let platform: Platform;
let tenantId: string;
let system: Account;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-import-share-'));
  platform = await openPlatform(
    loadConfig({ ODP_DATA_DIR: dir }),
    fileURLToPath(new URL(`file://${EXAMPLES}/`)),
  );
  const tenant = await platform.registry.createTenant({ name: 't', modelSource: path.join(EXAMPLES, 'crm') });
  tenantId = tenant.id;
  system = { kind: 'system', tenantId };
});
afterEach(async () => {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Uploads `csv` as `notes.csv` through a signed upload URL; answers the upload descriptor. */
async function upload(csv: string): Promise<unknown> {
  const token = new URL(platform.files.requestUpload(tenantId)).pathname.split('/').at(-1) ?? '';
  const body = [
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="file"; filename="notes.csv"',
    'Content-Type: text/csv',
    '',
    csv,
    `--${BOUNDARY}--`,
    '',
  ].join('\r\n');
  return platform.files.receive(
    token,
    { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    Readable.from([Buffer.from(body)]),
  );
}

it("charges an import's row writes to its tenant in the fair share", async () => {
  expect(platform.fairShare.debtOf(tenantId)).toBe(0);
  const rows = Array.from({ length: ROWS }, (_, index) => `Imported note ${index}`);
  const file = await upload(['subject', ...rows].join('\n'));
  const data = async () => (await platform.runtimes.get(tenantId)).data();
  const started = await platform.imports.start(tenantId, system, data, { file, typeName: 'notes' });
  let status = started;
  for (let wait = 0; status.state === 'running' && wait < 300; wait += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await platform.imports.status(tenantId, system, started.id);
  }
  expect(status).toMatchObject({ state: 'completed', processed: ROWS, created: ROWS, failed: 0 });
  expect(platform.fairShare.debtOf(tenantId)).toBeGreaterThan(0);
}, 60_000);
