/**
 * `pnpm bench --peers [--sizes 100000] [--duration 10] [--repetitions 3] [--connections 10]`: this
 * platform's embedded default beside PocketBase (pocketbase.ts), on the same machine, the same
 * generated data (seed.ts) and the same load generator (load.ts). For each size N both are seeded,
 * both servers run at once, and each operation (peer-operations.ts) is measured on one and then on
 * the other (the one going first alternates), so a change in the machine's load falls on both;
 * every figure is the median of the repetitions. CPU per request is each server process's user +
 * system time over the measured window (`/proc/<pid>/stat`, every thread of it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { median } from './cli.js';
import { runLoad } from './load.js';
import type { LoadFigures, LoadRequest } from './load.js';
import { deepCursorPath, LIST } from './operations.js';
import { peerOperations } from './peer-operations.js';
import type { PeerCaller, PeerOperation } from './peer-operations.js';
import { pocketbaseBinary, POCKETBASE_VERSION, startPocketBase } from './pocketbase.js';
import type { PocketBase } from './pocketbase.js';
import { seedPocketBase } from './pocketbase-seed.js';
import { startChild } from './processes.js';
import type { Child } from './processes.js';
import { seedPlatform } from './seed.js';
import type { SeedFixture } from './seed.js';

/** The medians of one system's repetitions of one operation. */
export interface PeerFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly cpuMsPerRequest: number;
  readonly bytesPerResponse: number;
  /** Bytes the server wrote per request besides its answers (its database's log and checkpoints, logs). */
  readonly writtenBytesPerRequest: number;
  /** Failed requests over all repetitions: any makes the row invalid. */
  readonly failures: number;
}

export interface PeerRow {
  readonly name: string;
  readonly platform: PeerFigures;
  readonly pocketbase: PeerFigures;
  /** The platform's req/s over PocketBase's. */
  readonly ratio: number;
  /** Every repetition, as measured. */
  readonly runs: { readonly platform: LoadFigures[]; readonly pocketbase: LoadFigures[] };
}

export interface PeerSize {
  readonly objects: number;
  readonly seedSeconds: { readonly platform: number; readonly pocketbase: number };
  readonly rows: PeerRow[];
}

export interface PeersBench {
  readonly pocketbase: string;
  /** The platform's api as measured: its entry point and how it runs. */
  readonly platform: string;
  readonly durationSeconds: number;
  readonly connections: number;
  readonly repetitions: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly sizes: PeerSize[];
}

export interface PeersOptions {
  readonly sizes: readonly number[];
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly repetitions: number;
  readonly modelDir: string;
  /** The api's entry point: built JavaScript (`BUILT_API`) or its sources (a `.ts`, through tsx). */
  readonly apiScript: string;
  readonly log: (line: string) => void;
}

/** A measured server, the headers of each caller, and how to read a page's invoice numbers. */
interface Side {
  readonly server: Child;
  readonly headers: Record<PeerCaller, Record<string, string>>;
}

function mediansOf(runs: readonly LoadFigures[]): PeerFigures {
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    cpuMsPerRequest: median(runs.map((run) => run.cpuMsPerRequest ?? 0)),
    bytesPerResponse: median(runs.map((run) => run.bytesPerResponse ?? 0)),
    writtenBytesPerRequest: median(runs.map((run) => run.writtenBytesPerRequest ?? 0)),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

const PAID_LIST = `/api/collections/invoices/records?filter=${encodeURIComponent("status='paid'")}&sort=invoiceNumber`;

/**
 * The deep page measured: page 500 of the filtered, sorted list (the platform numbers pages from 0,
 * PocketBase from 1: PocketBase's page 501), or the last full page when a small N has fewer (the
 * total counted once, by PocketBase), and PocketBase's keyset of it: the invoice number of the last
 * row of the page before.
 */
async function deepPageOf(pocketbase: PocketBase): Promise<{ page: number; after: string }> {
  const counted = (await pocketbase.call('GET', `${PAID_LIST}&perPage=1`)) as { totalItems: number };
  const page = Math.min(500, Math.floor(counted.totalItems / 20) - 1);
  const before = (await pocketbase.call('GET', `${PAID_LIST}&perPage=20&skipTotal=1&page=${page}`)) as {
    items: { invoiceNumber: string }[];
  };
  const last = before.items.at(-1);
  if (page < 1 || last === undefined) throw new Error(`The list ${LIST} has too few pages for a deep page.`);
  return { page, after: last.invoiceNumber };
}

/** The invoice numbers of a page: the platform's rows under `_embedded`, PocketBase's `items`. */
async function invoiceNumbers(side: Side, caller: PeerCaller, request: LoadRequest): Promise<string[]> {
  const res = await fetch(`${side.server.baseUrl}${request.path}`, { headers: side.headers[caller] });
  if (!res.ok) throw new Error(`${request.path}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { _embedded?: Record<string, unknown[]>; items?: unknown[] };
  const rows = (body.items ?? Object.values(body._embedded ?? {})[0] ?? []) as { invoiceNumber?: string }[];
  return rows.map((row) => String(row.invoiceNumber));
}

/**
 * The lists measured must be the same pages on both systems (the same data, filter, order and
 * access rule), and not empty: an empty or different page would measure different work.
 */
async function assertSamePages(operations: readonly PeerOperation[], platform: Side, pocketbase: Side) {
  for (const operation of operations.filter((candidate) => candidate.sameRows)) {
    const ours = await invoiceNumbers(platform, operation.caller, operation.platform(0));
    const theirs = await invoiceNumbers(pocketbase, operation.caller, operation.pocketbase(0));
    if (ours.length === 0 || ours.join() !== theirs.join()) {
      throw new Error(
        `${operation.name}: the platform answers [${ours.join(', ')}], PocketBase [${theirs.join(', ')}].`,
      );
    }
  }
}

/** One operation on one side: the same counter across repetitions keeps created values unique. */
function measure(
  side: Side,
  caller: PeerCaller,
  next: () => LoadRequest,
  options: PeersOptions,
): Promise<LoadFigures> {
  return runLoad({
    baseUrl: side.server.baseUrl,
    serverCpuMs: side.server.cpuMs,
    serverWrittenBytes: side.server.writtenBytes,
    headers: side.headers[caller],
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
    connections: options.connections,
    nextRequest: next,
  });
}

async function measureRows(
  platform: Side,
  pocketbase: Side,
  fixture: SeedFixture,
  deep: { page: number; cursorPath: string; after: string },
  options: PeersOptions,
): Promise<PeerRow[]> {
  const operations = peerOperations({
    fixture,
    deepPage: deep.page,
    deepCursorPath: deep.cursorPath,
    deepAfter: deep.after,
    runId: randomUUID().slice(0, 8),
  });
  await assertSamePages(operations, platform, pocketbase);
  const runs = operations.map(() => ({ platform: [] as LoadFigures[], pocketbase: [] as LoadFigures[] }));
  const counters = operations.map(() => ({ platform: 0, pocketbase: 0 }));
  for (let repetition = 0; repetition < options.repetitions; repetition += 1) {
    for (const [index, operation] of operations.entries()) {
      const order =
        (repetition + index) % 2 === 0
          ? (['platform', 'pocketbase'] as const)
          : (['pocketbase', 'platform'] as const);
      for (const system of order) {
        options.log(`  [${repetition + 1}/${options.repetitions}] ${operation.name}: ${system}`);
        const counter = counters[index]!;
        const figures = await measure(
          system === 'platform' ? platform : pocketbase,
          operation.caller,
          () => operation[system](counter[system]++),
          options,
        );
        runs[index]![system].push(figures);
      }
    }
  }
  return operations.map((operation, index) => {
    const measured = runs[index]!;
    const ours = mediansOf(measured.platform);
    const theirs = mediansOf(measured.pocketbase);
    return {
      name: operation.name,
      platform: ours,
      pocketbase: theirs,
      ratio: theirs.requestsPerSecond > 0 ? ours.requestsPerSecond / theirs.requestsPerSecond : 0,
      runs: measured,
    };
  });
}

async function measurePeerSize(objects: number, binary: string, options: PeersOptions): Promise<PeerSize> {
  const { log } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `odp-bench-peers-${objects}-`));
  let api: Child | undefined;
  let pocketbase: PocketBase | undefined;
  try {
    log(`Seeding ${objects.toLocaleString('en')} objects into the platform (${dataDir})`);
    const fixture = await seedPlatform({ dataDir, objects, modelDir: options.modelDir, log });
    api = await startChild(options.apiScript, { ODP_DATA_DIR: dataDir }, 'ODP api is running');
    log(`Seeding the same ${objects.toLocaleString('en')} records into PocketBase ${POCKETBASE_VERSION}`);
    pocketbase = await startPocketBase(binary);
    const seeded = await seedPocketBase(pocketbase, objects, fixture.viewerPersonId, log);
    log(`  platform ${fixture.seconds.objects.toFixed(1)} s, PocketBase ${seeded.seconds.toFixed(1)} s`);
    const tenantPath = `/data/${fixture.tenantId}`;
    const platformSide: Side = {
      server: api,
      headers: { system: { 'x-api-key': fixture.systemKey }, viewer: { 'x-api-key': fixture.viewerKey } },
    };
    const pocketbaseSide: Side = {
      server: pocketbase.child,
      headers: {
        system: { authorization: pocketbase.superuserToken },
        viewer: { authorization: seeded.viewerToken },
      },
    };
    const { page, after } = await deepPageOf(pocketbase);
    const cursorPath = await deepCursorPath(api.baseUrl, fixture.systemKey, tenantPath, page);
    if (cursorPath === undefined) throw new Error(`The platform's list ${LIST} has no page ${page}.`);
    const rows = await measureRows(
      platformSide,
      pocketbaseSide,
      fixture,
      { page, cursorPath, after },
      options,
    );
    return { objects, seedSeconds: { platform: fixture.seconds.objects, pocketbase: seeded.seconds }, rows };
  } finally {
    await api?.stop();
    await pocketbase?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Builds PocketBase if needed, then measures both systems at every size. */
export async function measurePeers(options: PeersOptions): Promise<PeersBench> {
  const binary = pocketbaseBinary(options.log);
  const loadBefore = os.loadavg();
  const sizes: PeerSize[] = [];
  for (const objects of options.sizes) sizes.push(await measurePeerSize(objects, binary, options));
  return {
    pocketbase: `PocketBase ${POCKETBASE_VERSION} (examples/base, --dev=false)`,
    platform: options.apiScript.endsWith('.ts')
      ? `node --import tsx ${options.apiScript} (the sources)`
      : `node ${options.apiScript} (built, as production runs it)`,
    durationSeconds: options.durationSeconds,
    connections: options.connections,
    repetitions: options.repetitions,
    loadBefore,
    loadAfter: os.loadavg(),
    sizes,
  };
}

/** True when no request of any repetition failed (a failed request invalidates the figures). */
export function peersComplete(bench: PeersBench): boolean {
  return bench.sizes.every((size) =>
    size.rows.every((row) => row.platform.failures === 0 && row.pocketbase.failures === 0),
  );
}

const whole = (value: number) => Math.round(value).toLocaleString('en');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function peersTable(bench: PeersBench): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const lines = [
    `This platform (embedded default, ${bench.platform}) beside ${bench.pocketbase}: ${bench.durationSeconds} s per operation and ` +
      `system at ${bench.connections} connections, ${bench.repetitions} repetitions alternating the servers, medians; ` +
      `load average before ${load(bench.loadBefore)}, after ${load(bench.loadAfter)}.`,
  ];
  for (const size of bench.sizes) {
    lines.push(
      '',
      `N = ${size.objects.toLocaleString('en')} (seeded in ${size.seedSeconds.platform.toFixed(1)} s through the ` +
        `platform's bulk path, ${size.seedSeconds.pocketbase.toFixed(1)} s through PocketBase's batch API)`,
      '',
      '| operation | this platform req/s | PocketBase req/s | ratio | CPU ms/request, ours vs theirs | p50 ms, ours vs theirs | response size, ours vs theirs | written besides the answer, ours vs theirs | failures |',
      '|---|---|---|---|---|---|---|---|---|',
      ...size.rows.map((row) =>
        [
          row.name,
          whole(row.platform.requestsPerSecond),
          whole(row.pocketbase.requestsPerSecond),
          `${row.ratio.toFixed(2)}x`,
          `${row.platform.cpuMsPerRequest.toFixed(2)} vs ${row.pocketbase.cpuMsPerRequest.toFixed(2)}`,
          `${row.platform.p50Ms.toFixed(1)} vs ${row.pocketbase.p50Ms.toFixed(1)}`,
          `${kb(row.platform.bytesPerResponse)} vs ${kb(row.pocketbase.bytesPerResponse)}`,
          `${kb(row.platform.writtenBytesPerRequest)} vs ${kb(row.pocketbase.writtenBytesPerRequest)}`,
          String(row.platform.failures + row.pocketbase.failures),
        ]
          .join(' | ')
          .replace(/^/, '| ')
          .concat(' |'),
      ),
    );
  }
  return lines.join('\n');
}
