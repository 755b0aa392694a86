/**
 * The worker alone (`pnpm --filter @odp/worker start`), for scale-out: claims and runs the jobs of
 * the deployment's job queue (the same configuration as the api: `ODP_DATA_DIR` and the engines)
 * until SIGTERM or SIGINT, then finishes the job in hand and exits 0. Several may run at once; each
 * job goes to one of them. Prints `ODP_WORKER_READY {"workerPid"}` once it runs.
 */
import { fileURLToPath } from 'node:url';
import { configOrExit, openPlatformOrExit, startWorker } from '@odp/platform';

const config = configOrExit();
const platform = await openPlatformOrExit(
  config,
  fileURLToPath(new URL('../../../examples/models/', import.meta.url)),
);
const worker = startWorker(platform);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  platform.log.info('shutting down', { signal });
  await worker.stop();
  await platform.close();
  platform.log.flush();
  process.exit(0);
};
process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));
process.stdout.write(`ODP_WORKER_READY ${JSON.stringify({ workerPid: process.pid })}\n`);
