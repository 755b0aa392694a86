import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeJobQueueContract } from '@odp/testkit';
import { openSqliteJobQueue } from './job-queue.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-job-queue-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeJobQueueContract('sqlite', async (shared) =>
  openSqliteJobQueue(join(dir, shared === undefined ? `jobs-${++counter}.sqlite` : `${shared}.sqlite`)),
);
