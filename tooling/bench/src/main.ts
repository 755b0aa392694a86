/**
 * `pnpm bench [--quick] [--sizes 10000,100000,1000000] [--duration 10] [--connections 10] [--out DIR]`
 * `pnpm bench --stack scale-out [...]`: the same operations with the api on the scale-out stack
 * (stack.ts; the engines of tooling/engines, found through their `ODP_TEST_*` variables).
 * `--operations-only`: the per-size operations alone, without model loading, files, jobs and
 * spreadsheets (a full run, not `--quick`, also measures the spreadsheet export and imports at 100k).
 * `pnpm bench --files [--quick]`: the files benchmark alone (files.ts).
 * `pnpm bench --jobs [--quick] [--stack scale-out]`: the jobs benchmark alone (jobs.ts: write -> webhook
 * delivered), on the stack's job queues (scale-out: agenda and the Redis queue in one run).
 * `pnpm bench --excel [--rows 100000] [--import-rows N]`: the spreadsheet benchmark alone (excel.ts).
 * `pnpm bench --cli [--calls 15]`: the time of one `odp` call, end to end, alone (cli.ts).
 * `pnpm bench --startup [--starts 5]`: start-up time and idle memory of the api, from its sources
 * (tsx) and built (`node apps/api/dist/main.js`), alone (startup.ts).
 * `--api-processes N` (default 1): the api's processes (`ODP_API_PROCESSES`); its CPU per request
 * then counts every process.
 * `pnpm bench --peers [--sizes 100000] [--duration 10] [--repetitions 3] [--sources]`: this platform
 * beside PocketBase, side by side (peers.ts; builds PocketBase's Go module once, so never part of
 * `--quick`), each as production runs it: the api built (`pnpm build` first) under plain node, or
 * from its sources through tsx with `--sources`.
 * `pnpm bench --neighbours [--quick] [--sizes 10000] [--duration 5] [--stack ...]`: the noisy-neighbour
 * matrix alone (noisy-neighbour.ts); `--duration` sets the seconds of each of its phases.
 *
 * For each size N: seeds a fresh tenant of the example CRM model, starts the api on it, and
 * measures every operation over HTTP on 127.0.0.1 for a fixed time, beside the raw store doing the
 * same work. The HTTP ceilings (bare node:http, express with the api's middleware) are measured
 * once per run. Prints a markdown table and writes `<out>/<date>.json` and `.md`.
 * `--quick` (N = 10k, 1 s per operation) is the smoke run CI makes: it asserts that the run
 * completed with no failed request, never a speed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { TenantAccessControl } from '@odp/acl';
import type { Account } from '@odp/core';
import { loadModelRepository } from '@odp/model-loader';
import { parseListQuery } from '@odp/query-engine';
import { tenantDataDir } from '@odp/config';
import { runLoad } from './load.js';
import type { LoadFigures } from './load.js';
import { measureEngine } from './engine.js';
import { measureModelLoads } from './model-load.js';
import { matrixProblems, measureNoisyNeighbours, neighbourTable, selectedFloods } from './noisy-neighbour.js';
import type { NeighbourMatrix } from './noisy-neighbour.js';
import { LIST, deepCursorPath, operations } from './operations.js';
import type { Caller, OperationContext } from './operations.js';
import { openStack } from './stack.js';
import type { Stack } from './stack.js';
import { REPO_ROOT, SOURCE_API, buildApi, startChild } from './processes.js';
import { machineFacts, markdownTable, writeRun } from './report.js';
import type { BenchRun, Ceilings, OperationResult } from './report.js';
import { seedPlatform } from './seed.js';
import { filesTable, measureFiles } from './files.js';
import type { FileBench } from './files.js';
import { jobsTable, measureJobs } from './jobs.js';
import { excelTable, measureExcel } from './excel.js';
import { cliTable, measureCli } from './cli.js';
import { measureStartup, startupTable } from './startup.js';
import { measurePeers, peersComplete, peersTable } from './peers.js';
import { measureCeilings } from './ceilings.js';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    files: { type: 'boolean', default: false },
    jobs: { type: 'boolean', default: false },
    stack: { type: 'string', default: 'embedded' },
    'operations-only': { type: 'boolean', default: false },
    excel: { type: 'boolean', default: false },
    cli: { type: 'boolean', default: false },
    startup: { type: 'boolean', default: false },
    starts: { type: 'string', default: '5' },
    neighbours: { type: 'boolean', default: false },
    floods: { type: 'string' },
    peers: { type: 'boolean', default: false },
    sources: { type: 'boolean', default: false },
    repetitions: { type: 'string', default: '3' },
    calls: { type: 'string', default: '15' },
    rows: { type: 'string' },
    'import-rows': { type: 'string' },
    sizes: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '10' },
    'api-processes': { type: 'string', default: '1' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench-results') },
  },
});
const defaultSizes =
  flags.quick || flags.neighbours ? '10000' : flags.peers ? '100000' : '10000,100000,1000000';
const sizes = (flags.sizes ?? defaultSizes).split(',').map(Number);
const durationSeconds = Number(flags.duration ?? (flags.quick ? 1 : 10));
/**
 * Each phase of a noisy-neighbour row (B alone, B while A floods), and the unrecorded flood before
 * them: every row in full, with 1 s phases and no warm-up in the quick run.
 */
const neighbourSeconds = Number(flags.duration ?? (flags.quick ? 1 : 5));
const neighbourWarmupSeconds = flags.quick ? 0 : 2;
/** The matrix's rows to measure (`--floods lists,small creates`): all by default. */
const floods = selectedFloods(flags.floods?.split(','));
const connections = Number(flags.connections);
const apiProcesses = Number(flags['api-processes']);
/** Each HTTP measurement follows this much of the same load, unrecorded (load.ts). */
const warmupSeconds = 1;
const modelDir = path.join(REPO_ROOT, 'examples/models/crm');
const log = (line: string) => process.stderr.write(line + '\n');

/** A target is met only by an operation that completed requests in the run. */
function judged(target: { description: string; met: boolean }, http: LoadFigures) {
  return http.requests > 0
    ? target
    : { description: `${target.description} (no request completed)`, met: false };
}

/**
 * Page 500 of the operations' list by keyset cursor: the `next` link page 499 answers (through the
 * api, which seals the cursor) and the position of that page's last row (on the engine).
 */
async function deepCursorOf(
  api: { baseUrl: string },
  key: string,
  tenantPath: string,
  plan: ReturnType<typeof parseListQuery>,
  store: OperationContext['store'],
): Promise<OperationContext['deepCursor']> {
  const next = await deepCursorPath(api.baseUrl, key, tenantPath);
  const page = await store.page(plan, { kind: 'all' });
  const after = page.positions[plan.size - 1];
  if (next === undefined || after === undefined || page.rows.length <= plan.size) return undefined;
  return { path: next, after };
}

/**
 * One size N: the operations (when `ceilings` are given) and then the noisy-neighbour matrix, with
 * tenant A of N objects and tenant B of at most 10k.
 */
async function measureSize(
  objects: number,
  stack: Stack,
  ceilings?: Ceilings,
): Promise<{ operations: OperationResult[]; neighbours: NeighbourMatrix }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `odp-bench-${objects}-`));
  const tenants: string[] = [];
  try {
    log(`Seeding ${objects.toLocaleString('en')} objects into ${dataDir} (${stack.name})`);
    const openStore = stack.openSeedStore;
    const fixture = await seedPlatform({
      dataDir,
      objects,
      modelDir,
      log,
      ...(openStore ? { openStore } : {}),
    });
    tenants.push(fixture.tenantId);
    // The neighbour of the two-tenant case: a second tenant of the same model, at most 10k objects.
    const neighbour = await seedPlatform({
      dataDir,
      objects: Math.min(objects, 10_000),
      modelDir,
      ...(openStore ? { openStore } : {}),
    });
    tenants.push(neighbour.tenantId);
    log(
      `  objects in ${fixture.seconds.objects.toFixed(1)} s, access control in ${fixture.seconds.accessControl.toFixed(1)} s`,
    );
    const model = (await loadModelRepository(modelDir)).model;
    if (!model) throw new Error('The example model was refused.');
    const engineStore = await stack.openEngineStore(
      fixture.tenantId,
      tenantDataDir({ dataDir }, fixture.tenantId),
    );
    const store = engineStore.store;
    await store.applyModel(model);
    const accessControl = new TenantAccessControl(model, fixture.tenantId, store);
    const account = (role: 'member' | 'viewer', objectId: string): Account => ({
      kind: 'user',
      tenantId: fixture.tenantId,
      profileId: role,
      role,
      extraRoles: [],
      objectId,
      email: `${role}@example.test`,
    });
    const filters = {
      member: await accessControl.policy.accessFilter(account('member', fixture.memberPersonId)),
      viewer: await accessControl.policy.accessFilter(account('viewer', fixture.viewerPersonId)),
    };
    const api = await startChild(
      SOURCE_API,
      { ...stack.env, ODP_DATA_DIR: dataDir, ODP_API_PROCESSES: String(apiProcesses) },
      'ODP api is running',
    );
    // Opens both tenants and lets their search indexes catch up (on the scale-out stack the
    // indexer applies the seed's create events) before anything is timed.
    for (const tenant of [fixture, neighbour]) {
      const warm = await fetch(`${api.baseUrl}/data/${tenant.tenantId}/search?q=amb&classes=companies`, {
        headers: { 'x-api-key': tenant.systemKey },
      });
      if (!warm.ok) throw new Error(`warm-up search: ${warm.status} ${await warm.text()}`);
    }
    // The record-level ACL operations measure the pages these accounts really see: none may be empty.
    for (const [caller, key, list] of [
      ['member', fixture.memberKey, 'companies?sort=legalName'],
      ['viewer', fixture.viewerKey, 'invoices?sort=invoiceNumber'],
    ] as const) {
      const res = await fetch(`${api.baseUrl}/data/${fixture.tenantId}/${list}`, {
        headers: { 'x-api-key': key },
      });
      const page = (await res.json()) as { _embedded?: Record<string, unknown[]> };
      const rows = Object.values(page._embedded ?? {})[0]?.length ?? 0;
      if (!res.ok || rows === 0) throw new Error(`The ${caller}'s ${list} page is empty (${res.status}).`);
    }
    const deepCursor = await deepCursorOf(
      api,
      fixture.systemKey,
      `/data/${fixture.tenantId}`,
      parseListQuery(model, 'crm.invoice', new URLSearchParams(`${LIST}&page=499`)),
      store,
    );
    if (deepCursor === undefined) log('  (no page 500 of the list at this N: its keyset row is left out)');
    const keys: Record<Caller, string> = {
      system: fixture.systemKey,
      member: fixture.memberKey,
      viewer: fixture.viewerKey,
    };
    const results: OperationResult[] = [];
    let neighbours: NeighbourMatrix;
    const figures = new Map<string, LoadFigures>();
    try {
      const runId = randomUUID().slice(0, 8);
      const context: OperationContext = {
        fixture,
        model,
        store,
        ...(engineStore.search ? { search: engineStore.search } : {}),
        ...(deepCursor ? { deepCursor } : {}),
        accessControl,
        filters,
        runId,
      };
      for (const operation of ceilings ? operations(context) : []) {
        log(`  ${operation.name}`);
        let i = 0;
        const { request } = operation;
        const http = request
          ? await runLoad({
              baseUrl: api.baseUrl,
              serverCpuMs: api.cpuMs,
              serverWrittenBytes: api.writtenBytes,
              warmupSeconds,
              headers: { 'x-api-key': keys[operation.caller] },
              durationSeconds,
              connections,
              nextRequest: () => request(i++),
              ...(operation.maxRequests === undefined ? {} : { maxRequests: operation.maxRequests }),
            })
          : undefined;
        if (http) figures.set(operation.name, http);
        const engine = operation.engine ? await measureEngine(durationSeconds, operation.engine) : undefined;
        results.push({
          name: operation.name,
          objects,
          ...(http ? { http } : {}),
          ...(engine ? { engine } : {}),
          ...(http && operation.target && ceilings
            ? { target: judged(operation.target(http, ceilings, figures), http) }
            : {}),
        });
      }
      log('  two tenants: B alone, then B while A floods, for each kind of flood');
      neighbours = await measureNoisyNeighbours({
        api,
        a: { tenantId: fixture.tenantId, key: fixture.systemKey },
        b: {
          tenantId: neighbour.tenantId,
          key: neighbour.systemKey,
          invoiceId: neighbour.invoiceId,
          invoices: neighbour.counts.invoices,
        },
        objects: { a: objects, b: Math.min(objects, 10_000) },
        phaseSeconds: neighbourSeconds,
        warmupSeconds: neighbourWarmupSeconds,
        connections,
        floods,
        quick: flags.quick,
        log,
      });
    } finally {
      await api.stop();
      await engineStore.close();
    }
    const perSecond = (seconds: number) => ({
      opsPerSecond: objects / Math.max(0.001, seconds),
      p50Ms: 0,
      p99Ms: 0,
    });
    results.push(
      {
        name: 'seed: objects through the bulk path (objects/s)',
        objects,
        engine: perSecond(fixture.seconds.objects),
      },
      {
        name: 'rebuild access control (objects/s)',
        objects,
        engine: perSecond(fixture.seconds.accessControl),
      },
    );
    return { operations: results, neighbours };
  } finally {
    await stack.forget(tenants);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The files benchmark on the filesystem blob store, and on MinIO when tooling/engines started it. */
async function measureFileStores(): Promise<FileBench[]> {
  const benches = [await measureFiles({ quick: flags.quick, log })];
  const endpoint = process.env['ODP_TEST_S3_ENDPOINT'];
  if (endpoint) {
    benches.push(
      await measureFiles({
        quick: flags.quick,
        log,
        s3: {
          endpoint,
          accessKey: process.env['ODP_TEST_S3_ACCESS_KEY'] ?? '',
          secretKey: process.env['ODP_TEST_S3_SECRET_KEY'] ?? '',
        },
      }),
    );
  }
  return benches;
}

/** Writes a benchmark's own result files (`<out>/<date>-<name>.json` and `.md`; `tmp/` when quick). */
function writeBench(name: string, table: string, result: Record<string, unknown>): void {
  const dir = flags.quick ? path.join(flags.out, 'tmp') : flags.out;
  mkdirSync(dir, { recursive: true });
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${name}`;
  writeFileSync(
    path.join(dir, `${stamp}.json`),
    JSON.stringify({ machine: machineFacts(), ...result }, null, 2) + '\n',
  );
  writeFileSync(path.join(dir, `${stamp}.md`), table + '\n');
  log(`Results written to ${path.relative(process.cwd(), path.join(dir, stamp))}.json and .md`);
}

if (flags.files) {
  const benches = await measureFileStores();
  const table = benches.map(filesTable).join('\n\n');
  process.stdout.write(table + '\n');
  writeBench('files', table, { files: benches });
  process.exit(benches.every((bench) => bench.memory.target.met) ? 0 : 1);
}

if (flags.jobs) {
  const jobsStack = await openStack(flags.stack ?? 'embedded');
  const bench = await measureJobs({ quick: flags.quick, stack: jobsStack, log }).finally(() =>
    jobsStack.close(),
  );
  const table = jobsTable(bench);
  process.stdout.write(table + '\n');
  writeBench('jobs', table, { jobs: bench });
  process.exit(bench.rounds.every((round) => round.complete) ? 0 : 1);
}

if (flags.cli) {
  const bench = measureCli({ calls: Number(flags.calls), log });
  process.stdout.write(cliTable(bench) + '\n');
  process.exit(bench.complete ? 0 : 1);
}

if (flags.startup) {
  const bench = await measureStartup({ starts: Number(flags.starts), log });
  const table = startupTable(bench);
  process.stdout.write(table + '\n');
  writeBench('startup', table, { startup: bench });
  process.exit(bench.complete ? 0 : 1);
}

if (flags.peers) {
  const bench = await measurePeers({
    sizes,
    durationSeconds,
    warmupSeconds,
    connections,
    repetitions: Number(flags.repetitions),
    modelDir,
    apiScript: flags.sources ? SOURCE_API : buildApi(log),
    log,
  });
  const table = peersTable(bench);
  process.stdout.write(table + '\n');
  writeBench('peers', table, { peers: bench });
  if (!peersComplete(bench)) log('A request failed: the side-by-side figures are not valid.');
  process.exit(peersComplete(bench) ? 0 : 1);
}

if (flags.excel) {
  const rows = Number(flags.rows ?? (flags.quick ? 2000 : 100_000));
  const importRows = flags['import-rows'] === undefined ? rows : Number(flags['import-rows']);
  const bench = await measureExcel({ rows, importRows, modelDir, log });
  const table = excelTable(bench);
  process.stdout.write(table + '\n');
  writeBench('excel', table, { excel: bench });
  process.exit(bench.complete && bench.memory.met ? 0 : 1);
}

/** Logs what invalidates the noisy-neighbour figures; true when nothing does. */
function neighboursValid(matrices: readonly NeighbourMatrix[]): boolean {
  const problems = matrices.flatMap(matrixProblems);
  for (const problem of problems) log(`Noisy neighbour: ${problem}: the matrix is not valid.`);
  return problems.length === 0;
}

let stack: Stack;
try {
  stack = await openStack(flags.stack ?? 'embedded');
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
if (flags.neighbours) {
  const matrices: NeighbourMatrix[] = [];
  try {
    for (const size of sizes) matrices.push((await measureSize(size, stack)).neighbours);
  } finally {
    await stack.close();
  }
  const table = matrices.map(neighbourTable).join('\n\n');
  process.stdout.write(table + '\n');
  writeBench('neighbours', table, { neighbours: matrices });
  process.exit(neighboursValid(matrices) ? 0 : 1);
}

const run: BenchRun = {
  startedAt: new Date().toISOString(),
  machine: machineFacts(),
  settings: { stack: stack.description, durationSeconds, connections, apiProcesses, sizes },
  ceilings: await measureCeilings({ warmupSeconds, durationSeconds, connections }),
  operations: [],
  neighbours: [],
};
try {
  for (const size of sizes) {
    const measured = await measureSize(size, stack, run.ceilings);
    run.operations.push(...measured.operations);
    run.neighbours.push(measured.neighbours);
  }
} finally {
  await stack.close();
}
// Model loading, the files benchmark (which measures MinIO beside the disk whenever tooling/engines
// started it) and the jobs benchmark do not depend on the api's stack: the default run makes them.
if (stack.name === 'embedded' && !flags['operations-only']) {
  for (const { name, figures } of await measureModelLoads(modelDir, durationSeconds)) {
    run.operations.push({ name, objects: 0, engine: figures });
  }
  run.files = await measureFileStores();
  run.jobs = await measureJobs({ quick: flags.quick, stack, log });
  if (!flags.quick) run.excel = await measureExcel({ rows: 100_000, importRows: 10_000, modelDir, log });
}

process.stdout.write(markdownTable(run) + '\n');
const file = writeRun(run, flags.quick ? path.join(flags.out, 'tmp') : flags.out);
log(`Results written to ${path.relative(process.cwd(), file)}`);
const failures = run.operations.reduce((sum, op) => sum + (op.http?.failures ?? 0), 0);
if (failures > 0) {
  log(`${failures} requests failed: the figures are not valid.`);
  process.exitCode = 1;
}
if (!neighboursValid(run.neighbours)) process.exitCode = 1;
if (run.excel && !run.excel.complete) {
  log('A spreadsheet import left rows unwritten: the spreadsheet figures are not valid.');
  process.exitCode = 1;
}
if (run.jobs && !run.jobs.rounds.every((round) => round.complete)) {
  log('A job was not delivered, or delivered twice: the jobs figures are not valid.');
  process.exitCode = 1;
}
