/**
 * The noisy-neighbour matrix (docs/performance.md, "Noisy neighbour"): for each kind of flood
 * tenant A can send (floods.ts, flood-replay.ts, flood-imports.ts), tenant B's get-one latency
 * alone and while A floods, in the same row: half of B's time alone right before the flood and
 * half right after it (once the api is quiet again), pooled, so that a drift of the machine over
 * the row (its clock, its caches, other processes) weighs on both sides of the ratio alike; A's
 * answers by kind (2xx, 429, other); and the api's memory (its processes' and their task
 * processes' proportional set sizes, summed: all of it, its own, the mapped file pages) sampled
 * every 100 ms from the row's start until the api is quiet again after the flood.
 * Targets: B's p50 within 1.5x and p99 within 3x of B alone, the api's own memory under 1 GB (the
 * database pages it maps are the kernel's file cache, shown beside it: `TreeMemory`). A
 * target is reported (met or MISSED), never asserted; a failed request of B (not 2xx/3xx)
 * invalidates the run, and so does a flood that could not be prepared.
 */
import { performance } from 'node:perf_hooks';
import { REPLAY_FLOOD } from './flood-replay.js';
import { IMPORT_FLOOD } from './flood-imports.js';
import { REQUEST_FLOODS } from './floods.js';
import type { Flood, FloodContext, FloodRun, StartedFlood } from './floods.js';
import type { LoadFigures } from './load.js';
import { figuresOf, neighbourLoad } from './neighbour-client.js';
import { treeMemoryMb } from './processes.js';
import type { TreeMemory } from './processes.js';
import type { Child } from './processes.js';

export interface Tenant {
  readonly tenantId: string;
  readonly key: string;
}

/** The matrix's rows, in order: A's floods of single requests, then the replay, then imports. */
export const FLOODS: readonly Flood[] = [...REQUEST_FLOODS, REPLAY_FLOOD, IMPORT_FLOOD];

export interface NeighbourOptions {
  /** The api both tenants use. */
  readonly api: Child;
  /** The flooding tenant. */
  readonly a: Tenant;
  /** The neighbour, with the ids of its invoices. */
  readonly b: Tenant & { readonly invoiceId: (index: number) => string; readonly invoices: number };
  /** Objects seeded in A and in B. */
  readonly objects: { readonly a: number; readonly b: number };
  /** Seconds of B alone, and of B while A floods. */
  readonly phaseSeconds: number;
  /** Seconds of A's flood run first, unrecorded, in each row (0: none). */
  readonly warmupSeconds: number;
  /** A's connections for the floods of single requests. */
  readonly connections: number;
  /** The rows to measure, in order (selectedFloods). */
  readonly floods: readonly Flood[];
  readonly quick: boolean;
  readonly log: (line: string) => void;
}

export const TARGETS = { p50Ratio: 1.5, p99Ratio: 3, ownMemoryMb: 1024 } as const;

export interface NeighbourRow {
  /** What A floods with, and how. */
  readonly kind: string;
  readonly flood: string;
  /** Why the row was not measured (its flood could not be prepared). */
  readonly error?: string;
  readonly alone?: LoadFigures;
  /** B's p50 alone in the half before the flood and in the half after it (ms). */
  readonly aloneHalvesP50Ms?: { readonly before: number; readonly after: number };
  readonly underFlood?: LoadFigures;
  readonly a?: FloodRun;
  readonly p50Ratio?: number;
  readonly p99Ratio?: number;
  /**
   * The api's peak memory from the row's start until it was quiet after the flood (MB): all of it,
   * its own, and the mapped file pages (`TreeMemory`), each its own peak.
   */
  readonly peakRssMb?: number;
  readonly peakOwnMb?: number;
  readonly peakMappedMb?: number;
  /** How long the api kept working after A's clients stopped (at most the settle cap). */
  readonly busyAfterSeconds?: number;
}

export interface NeighbourMatrix {
  readonly objects: { readonly a: number; readonly b: number };
  readonly phaseSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly rows: NeighbourRow[];
}

/** The api is quiet when it used less than this share of one core over a window. */
const QUIET_SHARE = 0.1;
const QUIET_WINDOW_MS = 500;

/**
 * Waits until the api is quiet (work A left behind, such as requests its clients gave up on or
 * imports still running, is done) or `capSeconds` passed; resolves the seconds it was busy.
 */
async function settle(api: Child, capSeconds: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = api.cpuMs();
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const busy = Math.max(0, performance.now() - started - QUIET_WINDOW_MS) / 1000;
    if (api.cpuMs() - before < QUIET_WINDOW_MS * QUIET_SHARE || busy >= capSeconds) return busy;
  }
}

/**
 * Samples the api's memory (the proportional set sizes of its processes and their task processes,
 * summed: `treeMemoryMb`) every 100 ms until `stop()`, which resolves the peak of each part (MB).
 */
function sampleMemory(pid: number): { stop(): TreeMemory } {
  let peak = treeMemoryMb(pid);
  const sample = () => {
    const now = treeMemoryMb(pid);
    peak = {
      total: Math.max(peak.total, now.total),
      own: Math.max(peak.own, now.own),
      mapped: Math.max(peak.mapped, now.mapped),
    };
  };
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function measureRow(
  flood: Flood,
  context: FloodContext,
  options: NeighbourOptions,
): Promise<NeighbourRow> {
  const { api, b, phaseSeconds } = options;
  const base = { kind: flood.kind, flood: flood.describe(context) };
  let start: StartedFlood;
  try {
    start = await flood.prepare(context);
  } catch (error) {
    return { ...base, error: error instanceof Error ? error.message : String(error) };
  }
  const capSeconds = options.quick ? 20 : 120;
  const paths = Array.from(
    { length: b.invoices },
    (_, index) => `/data/${b.tenantId}/invoices/${b.invoiceId(index)}`,
  );
  const neighbour = (durationSeconds: number) =>
    neighbourLoad({ baseUrl: api.baseUrl, key: b.key, durationSeconds, paths });
  await settle(api, capSeconds);
  const memory = sampleMemory(api.pid);
  try {
    if (options.warmupSeconds > 0) {
      await start(options.warmupSeconds);
      await settle(api, capSeconds);
    }
    const before = await neighbour(phaseSeconds / 2);
    const [a, flooded] = await Promise.all([start(phaseSeconds), neighbour(phaseSeconds)]);
    const busyAfterSeconds = await settle(api, capSeconds);
    const after = await neighbour(phaseSeconds / 2);
    const alone = figuresOf(before, after);
    const underFlood = figuresOf(flooded);
    return {
      ...base,
      alone,
      aloneHalvesP50Ms: { before: figuresOf(before).p50Ms, after: figuresOf(after).p50Ms },
      underFlood,
      a,
      p50Ratio: underFlood.p50Ms / Math.max(alone.p50Ms, 0.001),
      p99Ratio: underFlood.p99Ms / Math.max(alone.p99Ms, 0.001),
      ...peakMemory(memory.stop()),
      busyAfterSeconds,
    };
  } finally {
    memory.stop();
  }
}

function peakMemory(peak: TreeMemory): Pick<NeighbourRow, 'peakRssMb' | 'peakOwnMb' | 'peakMappedMb'> {
  return { peakRssMb: peak.total, peakOwnMb: peak.own, peakMappedMb: peak.mapped };
}

/** The floods named in `kinds` (case-insensitive), in the matrix's order; every flood without it. */
export function selectedFloods(kinds: readonly string[] | undefined): Flood[] {
  if (kinds === undefined) return [...FLOODS];
  const wanted = new Set(kinds.map((kind) => kind.trim().toLowerCase()));
  const selected = FLOODS.filter((flood) => wanted.has(flood.kind.toLowerCase()));
  if (selected.length !== wanted.size) {
    throw new Error(
      `--floods names ${[...wanted].join(', ')}; the rows are ${FLOODS.map((f) => f.kind).join(', ')}.`,
    );
  }
  return selected;
}

export async function measureNoisyNeighbours(options: NeighbourOptions): Promise<NeighbourMatrix> {
  const context: FloodContext = {
    baseUrl: options.api.baseUrl,
    tenantId: options.a.tenantId,
    key: options.a.key,
    connections: options.connections,
    quick: options.quick,
    log: options.log,
  };
  const rows: NeighbourRow[] = [];
  for (const flood of options.floods) {
    options.log(`  tenant A floods with ${flood.kind}`);
    rows.push(await measureRow(flood, context, options));
  }
  const { objects, phaseSeconds, warmupSeconds, connections } = options;
  return { objects, phaseSeconds, warmupSeconds, connections, rows };
}

/** B's failed requests and the rows that could not be measured: either makes the run invalid. */
export function matrixProblems(matrix: NeighbourMatrix): string[] {
  return matrix.rows.flatMap((row) => [
    ...(row.error ? [`${row.kind}: not measured: ${row.error}`] : []),
    ...((row.alone?.failures ?? 0) + (row.underFlood?.failures ?? 0) > 0
      ? [`${row.kind}: ${(row.alone?.failures ?? 0) + (row.underFlood?.failures ?? 0)} requests of B failed`]
      : []),
  ]);
}

const ms = (value: number) => value.toFixed(2);
const judged = (met: boolean, text: string) => `${text} ${met ? 'met' : '**MISSED**'}`;

/** The matrix as a markdown table, the targets beside the figures. */
export function neighbourTable(matrix: NeighbourMatrix): string {
  const { objects } = matrix;
  const lines = [
    `Noisy neighbour: tenant A (${objects.a.toLocaleString('en')} objects) floods, tenant B ` +
      `(${objects.b.toLocaleString('en')} objects) gets one invoice at a time; in each row, ` +
      `${matrix.phaseSeconds} s of B alone (half before the flood, half after it) and ` +
      `${matrix.phaseSeconds} s while A floods` +
      (matrix.warmupSeconds > 0 ? `, after ${matrix.warmupSeconds} s of the flood unrecorded.` : '.') +
      ` Targets: B's p50 <= ${TARGETS.p50Ratio}x and p99 <= ${TARGETS.p99Ratio}x of B alone, ` +
      `the api's own memory < ${TARGETS.ownMemoryMb} MB at its peak (anonymous and shared memory of its ` +
      'processes and task processes, by their PSS; the database pages they map, which the file cache ' +
      'holds with or without the mapping, are shown beside it and in the total).',
    '',
    "| A floods with | A's answers: 2xx / 429 / other | B p50 alone -> under flood (ms) | p50 ratio | " +
      'B p99 alone -> under flood (ms) | p99 ratio | api own memory (mapped, total) | api busy after | B failures |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const notes: string[] = [];
  for (const row of matrix.rows) {
    const { alone, underFlood, a } = row;
    if (row.error || !alone || !underFlood || !a) {
      lines.push(`| ${row.kind} | not measured: ${row.error ?? 'no figures'} | | | | | | | |`);
      continue;
    }
    const p50 = row.p50Ratio ?? 0;
    const p99 = row.p99Ratio ?? 0;
    const own = row.peakOwnMb ?? 0;
    lines.push(
      [
        row.kind,
        `${a.outcomes.ok} / ${a.outcomes.refused} / ${a.outcomes.other}`,
        `${ms(alone.p50Ms)} -> ${ms(underFlood.p50Ms)}`,
        judged(p50 <= TARGETS.p50Ratio, `${p50.toFixed(2)}x`),
        `${ms(alone.p99Ms)} -> ${ms(underFlood.p99Ms)}`,
        judged(p99 <= TARGETS.p99Ratio, `${p99.toFixed(2)}x`),
        judged(own < TARGETS.ownMemoryMb, `${own.toFixed(0)} MB`) +
          ` (${(row.peakMappedMb ?? 0).toFixed(0)}, ${(row.peakRssMb ?? 0).toFixed(0)})`,
        `${(row.busyAfterSeconds ?? 0).toFixed(1)} s`,
        String(alone.failures + underFlood.failures),
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    );
    const halves = row.aloneHalvesP50Ms;
    const aloneNote =
      halves === undefined
        ? ''
        : `; B alone p50 ${ms(halves.before)} ms before, ${ms(halves.after)} ms after`;
    notes.push(`- ${row.kind}: ${row.flood}; ${a.note}${aloneNote}.`);
  }
  return [...lines, '', ...notes].join('\n');
}
