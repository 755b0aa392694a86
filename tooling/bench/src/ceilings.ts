/**
 * The HTTP ceilings of a run, measured once: a bare `node:http` server (bare-http.ts) and express
 * with the api's middleware (express-ceiling.ts), each answering a fixed JSON body the size of a
 * typical DataObject. They are what a request costs before the platform does any of its work, and
 * tell a fast machine from a slow one between runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './load.js';
import { startChild } from './processes.js';
import type { Ceilings } from './report.js';

/** How each ceiling is loaded: the run's own settings. */
export interface CeilingLoad {
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly connections: number;
}

/** A fixed JSON body the size of a typical DataObject. */
const FIXED_BODY = JSON.stringify({ ceiling: true, padding: 'x'.repeat(600) });

export async function measureCeilings(load: CeilingLoad): Promise<Ceilings> {
  const bare = await startChild('tooling/bench/src/bare-http.ts', { BENCH_BODY: FIXED_BODY }, 'LISTENING');
  const bareHttp = await runLoad({
    ...load,
    baseUrl: bare.baseUrl,
    serverCpuMs: bare.cpuMs,
    nextRequest: () => ({ path: '/' }),
  });
  await bare.stop();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-ceiling-'));
  const edge = await startChild(
    'tooling/bench/src/express-ceiling.ts',
    { BENCH_BODY: FIXED_BODY, ODP_DATA_DIR: dataDir },
    'CEILING_READY',
  );
  const ready = JSON.parse(edge.ready) as { path: string; key: string };
  const express = await runLoad({
    ...load,
    baseUrl: edge.baseUrl,
    serverCpuMs: edge.cpuMs,
    headers: { 'x-api-key': ready.key },
    nextRequest: () => ({ path: ready.path }),
  });
  await edge.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return { bareHttp, express };
}
