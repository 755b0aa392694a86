import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWindowCountersContract } from '@odp/testkit';
import { SqliteWindowCounters } from './window-counters.js';

const dir = mkdtempSync(join(tmpdir(), 'odp-counters-'));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWindowCountersContract(
  'sqlite',
  async (shared) =>
    new SqliteWindowCounters(
      join(dir, shared === undefined ? `counters-${++counter}.sqlite` : `${shared}.sqlite`),
    ),
);
