/**
 * The benchmark report: one row per measured operation with its ratios to the three ceilings,
 * printed as a markdown table and written as JSON with the machine facts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { FileBench } from './files.js';
import { filesTable } from './files.js';
import type { JobsBench } from './jobs.js';
import { jobsTable } from './jobs.js';
import type { ExcelBench } from './excel.js';
import { excelTable } from './excel.js';
import type { LoadFigures } from './load.js';
import type { NeighbourMatrix } from './noisy-neighbour.js';
import { neighbourTable } from './noisy-neighbour.js';

/** The engine ceiling: the same operation on the raw store, without HTTP, in one process. */
export interface EngineFigures {
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface OperationResult {
  readonly name: string;
  /** Objects in the tenant; 0 for operations that use no tenant (model loading). */
  readonly objects: number;
  /** Absent for work measured without HTTP only (seeding, model loading). */
  readonly http?: LoadFigures;
  readonly engine?: EngineFigures;
  /** The target this operation is held to, and whether this run met it. */
  readonly target?: { readonly description: string; readonly met: boolean };
}

export interface Ceilings {
  readonly bareHttp: LoadFigures;
  readonly express: LoadFigures;
}

export interface BenchRun {
  readonly startedAt: string;
  readonly machine: { readonly cores: number; readonly cpuModel: string; readonly node: string };
  readonly settings: {
    /** The api's stack (`--stack`), as described for the report. */
    readonly stack?: string;
    readonly durationSeconds: number;
    readonly connections: number;
    /** The api's processes (`--api-processes`, `ODP_API_PROCESSES`); absent in runs before it existed: 1. */
    readonly apiProcesses?: number;
    readonly sizes: number[];
  };
  readonly ceilings: Ceilings;
  readonly operations: OperationResult[];
  /** The noisy-neighbour matrix of each size (noisy-neighbour.ts). */
  readonly neighbours: NeighbourMatrix[];
  /** The files benchmark, per blob store measured (files.ts). */
  files?: FileBench[];
  /** Jobs end to end with one and two workers (jobs.ts). */
  jobs?: JobsBench;
  /** Spreadsheet export and imports at 100k invoices (excel.ts). */
  excel?: ExcelBench;
}

export function machineFacts(): BenchRun['machine'] {
  const all = cpus();
  return { cores: all.length, cpuModel: all[0]?.model ?? 'unknown', node: process.version };
}

function ratio(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(0)}%` : 'n/a';
}

const fixed = (value: number, digits = 1): string => value.toFixed(digits);

const cpuNote = (figures: LoadFigures): string =>
  figures.cpuMsPerRequest === undefined ? '' : `, ${fixed(figures.cpuMsPerRequest, 2)} ms CPU per request`;

/** The markdown table: throughput, latency, and each operation's share of every ceiling. */
export function markdownTable(run: BenchRun): string {
  const lines = [
    `Machine: ${run.machine.cores} cores (${run.machine.cpuModel}), Node ${run.machine.node}; ` +
      `${run.settings.durationSeconds}s per operation at ${run.settings.connections} connections` +
      `${(run.settings.apiProcesses ?? 1) > 1 ? `, ${run.settings.apiProcesses} api processes` : ''}.`,
    ...(run.settings.stack ? ['', `Stack: ${run.settings.stack}.`] : []),
    '',
    `Ceilings: bare node:http ${fixed(run.ceilings.bareHttp.requestsPerSecond, 0)} req/s ` +
      `(p50 ${fixed(run.ceilings.bareHttp.p50Ms)} ms${cpuNote(run.ceilings.bareHttp)}); express with the api's middleware ` +
      `${fixed(run.ceilings.express.requestsPerSecond, 0)} req/s (p50 ${fixed(run.ceilings.express.p50Ms)} ms${cpuNote(run.ceilings.express)}).`,
    '',
    "Latencies in parentheses are of the engine alone (no HTTP). CPU ms/req: the api process's CPU time per",
    'completed request (user + system); at a fixed number of connections the p50 is about that many',
    'times this figure, so a latency target sets the CPU a request may use.',
    '',
    '| operation | N | req/s | p50 ms | p99 ms | failures | CPU ms/req | % of node:http | % of express | engine ops/s | % of engine | target |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const op of run.operations) {
    const { engine, http } = op;
    lines.push(
      [
        op.name,
        op.objects > 0 ? op.objects.toLocaleString('en') : '-',
        http ? fixed(http.requestsPerSecond, 0) : '-',
        http ? fixed(http.p50Ms) : engine ? `(${fixed(engine.p50Ms)})` : '-',
        http ? fixed(http.p99Ms) : engine ? `(${fixed(engine.p99Ms)})` : '-',
        http ? String(http.failures) : '-',
        http?.cpuMsPerRequest !== undefined ? fixed(http.cpuMsPerRequest, 2) : '-',
        http ? ratio(http.requestsPerSecond, run.ceilings.bareHttp.requestsPerSecond) : '-',
        http ? ratio(http.requestsPerSecond, run.ceilings.express.requestsPerSecond) : '-',
        engine ? fixed(engine.opsPerSecond, engine.opsPerSecond < 10 ? 2 : 0) : '-',
        engine && http ? ratio(http.requestsPerSecond, engine.opsPerSecond) : '-',
        op.target ? `${op.target.met ? 'met' : 'MISSED'}: ${op.target.description}` : '-',
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    );
  }
  for (const matrix of run.neighbours) lines.push('', neighbourTable(matrix));
  for (const bench of run.files ?? []) lines.push('', filesTable(bench));
  if (run.jobs) lines.push('', '### Jobs end to end (write -> webhook delivered)', '', jobsTable(run.jobs));
  if (run.excel) lines.push('', '### Spreadsheets', '', excelTable(run.excel));
  return lines.join('\n');
}

/** Writes `<dir>/<date>.json` and `<dir>/<date>.md`; returns the JSON file's path. */
export function writeRun(run: BenchRun, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const stamp = run.startedAt.replace(/[:.]/g, '-');
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, JSON.stringify(run, null, 2) + '\n');
  writeFileSync(join(dir, `${stamp}.md`), markdownTable(run) + '\n');
  return file;
}
