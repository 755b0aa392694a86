/**
 * Two worker processes (each a JobRunner on its own connection to the same agenda collection) and
 * `kill -9` of the one holding a job: the job goes to the other once the lease ends, once. On the
 * MongoDB of ODP_TEST_MONGODB_URL (FerretDB on the project's machines); skipped, saying so, without.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { JobQueue } from '@odp/core';
import { describeWithEngine } from '@odp/testkit';
import { openAgendaJobQueue } from './agenda-job-queue.js';

const LEASE_MS = 3000;
const CHILD = path.join(__dirname, '../test/runner-child.ts');

interface Worker {
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  lines(): string[];
  /** Resolves the first printed line matching `pattern` (within `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
}

function startWorker(url: string, database: string, collection: string): Worker {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@odp/source', CHILD, url, database, collection],
    {
      env: { ...process.env, LEASE_MS: String(LEASE_MS), POLL_MS: '50' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = () => output.split('\n').filter((line) => line !== '');
  return {
    child,
    lines,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = lines().find((candidate) => pattern.test(candidate));
        if (line !== undefined) return line;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no line ${pattern} from worker ${child.pid}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

describeWithEngine(
  'agenda job queue: two worker processes, the holder killed',
  'ODP_TEST_MONGODB_URL',
  (url) => {
    jest.setTimeout(120_000);
    const database = `odp_test_jobs_kill_${randomUUID().slice(0, 8)}`;
    const collection = 'agendaJobs';
    let queue: JobQueue;
    const workers: Worker[] = [];

    beforeAll(async () => {
      queue = await openAgendaJobQueue(url, { database, collection });
    });
    afterAll(async () => {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await queue.close();
      const client = await MongoClient.connect(url);
      await client.db(database).dropDatabase();
      await client.close();
    });

    it('re-runs the job of the worker killed with SIGKILL on the other worker, once, after the lease', async () => {
      workers.push(startWorker(url, database, collection), startWorker(url, database, collection));
      // Both poll before the job exists: either may claim it.
      await Promise.all(workers.map((worker) => worker.waitFor(/^READY /, 60_000)));
      const id = randomUUID();
      await queue.enqueue([
        {
          id,
          tenantId: 'tenant-a',
          kind: 'gateway',
          objectId: null,
          payload: {},
          createdAt: new Date().toISOString(),
        },
      ]);

      const running = await Promise.race(workers.map((worker) => worker.waitFor(/^RUNNING /, 30_000)));
      const holderPid = Number(running.split(' ')[3]);
      const holder = workers.find((worker) => worker.child.pid === holderPid)!;
      const other = workers.find((worker) => worker !== holder)!;
      expect(running).toBe(`RUNNING ${id} 1 ${holderPid}`);
      // kill -9 of the holder, by its pid.
      const killedAt = Date.now();
      process.kill(holderPid, 'SIGKILL');
      await new Promise((resolve) => holder.child.once('exit', resolve));

      expect(await other.waitFor(/^DONE /, 30_000)).toBe(`DONE ${id} 2 ${other.child.pid}`);
      // Not before the lease the killed worker held had ended.
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 1000);
      expect(await queue.get(id)).toMatchObject({ status: 'done', attempts: 2, leaseUntil: null });

      // Another lease period later, nothing ran it again.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 1000));
      const runs = [...holder.lines(), ...other.lines()].filter((line) => line.startsWith('RUNNING '));
      expect(runs).toEqual([`RUNNING ${id} 1 ${holderPid}`, `RUNNING ${id} 2 ${other.child.pid}`]);
      expect(other.lines().filter((line) => line.startsWith('ERROR'))).toEqual([]);
      expect(await queue.get(id)).toMatchObject({ status: 'done', attempts: 2 });
    });
  },
);
