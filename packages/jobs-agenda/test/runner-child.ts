/**
 * A worker process for the kill test (`agenda-job-queue.kill.test.ts`): a JobRunner of its own on
 * the agenda collection named by its arguments (`<mongodb url> <database> <collection>`), with the
 * lease and poll of the environment's `LEASE_MS` and `POLL_MS`. Prints `READY <pid>`, then for each
 * job it starts `RUNNING <jobId> <attempt> <pid>`: a first attempt never ends (the worker is killed
 * holding it), a later one completes and prints `DONE <jobId> <attempt> <pid>`.
 */
import { JobRunner } from '@odp/job-runner';
import { openAgendaJobQueue } from '../src/agenda-job-queue.js';

const [url = '', database = '', collection = ''] = process.argv.slice(2);
const queue = await openAgendaJobQueue(url, { database, collection });
const say = (line: string) => process.stdout.write(`${line}\n`);
const runner = new JobRunner({
  queue,
  workerId: `kill-test-${process.pid}`,
  leaseMs: Number(process.env['LEASE_MS']),
  now: () => new Date(),
  log: {
    info: (message, fields) => {
      if (message === 'job done')
        say(`DONE ${String(fields?.['jobId'])} ${String(fields?.['attempt'])} ${process.pid}`);
    },
    error: (message, fields) => say(`ERROR ${message} ${JSON.stringify(fields)}`),
  },
  handlers: {
    gateway: async (job) => {
      say(`RUNNING ${job.id} ${job.attempts} ${process.pid}`);
      if (job.attempts === 1) await new Promise(() => undefined);
    },
  },
});
runner.start({ pollMs: Number(process.env['POLL_MS']) });
say(`READY ${process.pid}`);
