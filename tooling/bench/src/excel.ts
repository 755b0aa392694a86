/**
 * The spreadsheet benchmark (`pnpm bench --excel [--rows 100000] [--import-rows N]`, docs/excel.md):
 * on a platform seeded with `rows` invoices (seed.ts, the bulk path), over HTTP on 127.0.0.1 with
 * the system key:
 *
 * - export: `GET /data/{t}/excel/invoices` until the signed URL answers (the whole workbook written
 *   to the blob store), rows/s; the api's resident memory sampled every 50 ms during it (growth
 *   over the level before must stay flat: rows are streamed a page at a time);
 * - import (create): a generated CSV of `importRows` (default `rows`) new invoices, each client
 *   matched by name, from `POST /data/{t}/import` until its status reports `completed`, rows/s;
 * - import (update): the first `importRows` rows of the exported workbook imported back (a workbook
 *   of those rows, written by exceljs), every row a patch matched by id.
 *
 * Each import row is a separate write through the data service (validation, formulas, ACL rows,
 * events), as a client's create or patch is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { PassThrough, Readable } from 'node:stream';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { DEFAULT_IMPORT_LIMITS } from '@odp/core';
import { readRows } from '@odp/excel';
import { SOURCE_API, residentMb, startChild } from './processes.js';
import { seedPlatform } from './seed.js';

/** Flat: the api grows by less than this while the export streams. */
const FLAT_GROWTH_MB = 150;

export interface ExcelBench {
  readonly rows: number;
  /** Rows of each import (the tenant holds `rows` invoices while they run). */
  readonly importRows: number;
  readonly exportRowsPerSecond: number;
  readonly exportSeconds: number;
  readonly workbookMb: number;
  readonly rssBeforeMb: number;
  readonly rssPeakExportMb: number;
  /** Peak growth of the api's own memory (`RssAnon`) and of its mapped file pages (`RssFile`). */
  readonly anonGrowthMb: number;
  readonly fileGrowthMb: number;
  readonly importCreateRowsPerSecond: number;
  readonly importUpdateRowsPerSecond: number;
  readonly memory: { readonly description: string; readonly met: boolean };
  /** Every import row was written (no row error, state completed). */
  readonly complete: boolean;
}

export async function call(
  url: string,
  key: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; json: unknown; location: string | null }> {
  const res = await fetch(url, {
    // A fresh connection per request: polling must not race the server's keep-alive timeout.
    keepalive: false,
    method: init.method ?? 'GET',
    headers: {
      'X-API-Key': key,
      Connection: 'close',
      ...(init.body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as unknown) : null,
    location: res.headers.get('location'),
  };
}

export async function upload(
  base: string,
  tenant: string,
  key: string,
  bytes: Buffer,
  name: string,
): Promise<unknown> {
  const url = (await call(`${base}/data/${tenant}/upload`, key)).json as string;
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(url, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as unknown[])[0];
}

interface Status {
  state: string;
  processed: number;
  created: number;
  updated: number;
  failed: number;
  errors: unknown[];
}

/**
 * The workbook cut to its header and first `rows` rows, read and written streaming (a copy of the
 * first sheet's cell values; the whole workbook when it has no more rows).
 */
async function firstRows(workbook: Buffer, rows: number, total: number): Promise<Buffer> {
  if (rows >= total) return workbook;
  const out = new PassThrough();
  const bytes = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of out) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  })();
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true });
  const sheet = writer.addWorksheet('invoices');
  let kept = 0;
  for await (const row of readRows(Readable.from([workbook]), 'xlsx', DEFAULT_IMPORT_LIMITS)) {
    if (kept > rows) break;
    sheet.addRow([...row.cells]).commit();
    kept += 1;
  }
  sheet.commit();
  await writer.commit();
  return bytes;
}

/** Runs an import to its end; resolves its final status and the seconds it took. */
async function timedImport(
  base: string,
  key: string,
  href: string,
  task: unknown,
): Promise<{ status: Status; seconds: number }> {
  const started = process.hrtime.bigint();
  const { location } = await call(href, key, { method: 'POST', body: task });
  for (;;) {
    const status = (await call(`${base}${location ?? ''}`, key)).json as Status;
    if (status.state !== 'running') {
      return { status, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function measureExcel(options: {
  rows: number;
  importRows?: number;
  modelDir: string;
  log: (line: string) => void;
}): Promise<ExcelBench> {
  const { log } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-excel-'));
  // seed.ts makes 1 % companies and 0.1 % persons; the rest are invoices.
  const objects = Math.round(options.rows / 0.989);
  log(`Seeding ${objects.toLocaleString('en')} objects for the spreadsheet benchmark`);
  const fixture = await seedPlatform({ dataDir, objects, modelDir: options.modelDir });
  const rows = fixture.counts.invoices;
  const api = await startChild(
    SOURCE_API,
    { ODP_DATA_DIR: dataDir, ODP_MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024) },
    'ODP api is running',
  );
  const key = fixture.systemKey;
  const base = api.baseUrl;
  const tenant = fixture.tenantId;
  try {
    // Warm the tenant runtime (model, store) outside the timed export.
    await call(`${base}/data/${tenant}/invoices?size=1`, key);
    const before = residentMb(api.pid);
    const peak = { ...before };
    const sampler = setInterval(() => {
      const now = residentMb(api.pid);
      peak.rss = Math.max(peak.rss, now.rss);
      peak.anon = Math.max(peak.anon, now.anon);
      peak.file = Math.max(peak.file, now.file);
    }, 50);
    log(`  export of ${rows.toLocaleString('en')} invoices`);
    const exportStarted = process.hrtime.bigint();
    const signed = (await call(`${base}/data/${tenant}/excel/invoices`, key)).json as string;
    const exportSeconds = Number(process.hrtime.bigint() - exportStarted) / 1e9;
    clearInterval(sampler);
    const workbook = Buffer.from(await (await fetch(signed)).arrayBuffer());

    const importRows = Math.min(rows, options.importRows ?? rows);
    log(`  import (create) of ${importRows.toLocaleString('en')} invoices from CSV, clients by name`);
    const companies = (await call(`${base}/data/${tenant}/companies?size=1000&sort=legalName`, key)).json as {
      _embedded: { companies: { legalName: string }[] };
    };
    const names = companies._embedded.companies.map((company) => company.legalName);
    const lines = ['Invoice number,Amount excl. VAT,Invoice date,client'];
    for (let index = 0; index < importRows; index++) {
      lines.push(
        `BENCH-${index},${(10 + (index % 1000)).toFixed(2)},2026-01-${String(1 + (index % 28)).padStart(2, '0')},${names[index % names.length] ?? ''}`,
      );
    }
    const csv = await upload(base, tenant, key, Buffer.from(lines.join('\n')), 'invoices.csv');
    const created = await timedImport(base, key, `${base}/data/${tenant}/import`, {
      file: csv,
      typeName: 'invoices',
    });

    log(`  import (update) of the exported workbook, rows matched by id`);
    const xlsx = await upload(
      base,
      tenant,
      key,
      await firstRows(workbook, importRows, rows),
      'invoices.xlsx',
    );
    const updated = await timedImport(base, key, `${base}/data/${tenant}/import`, {
      file: xlsx,
      typeName: 'invoices',
      mode: 'update',
    });
    const growth = peak.rss - before.rss;
    return {
      rows,
      importRows,
      exportSeconds,
      exportRowsPerSecond: rows / exportSeconds,
      workbookMb: workbook.length / 1e6,
      rssBeforeMb: before.rss,
      rssPeakExportMb: peak.rss,
      anonGrowthMb: peak.anon - before.anon,
      fileGrowthMb: peak.file - before.file,
      importCreateRowsPerSecond: created.status.processed / created.seconds,
      importUpdateRowsPerSecond: updated.status.processed / updated.seconds,
      memory: {
        description: `api RSS grows by less than ${FLAT_GROWTH_MB} MB while ${rows.toLocaleString('en')} rows are exported`,
        met: growth < FLAT_GROWTH_MB,
      },
      complete:
        created.status.state === 'completed' &&
        created.status.created === importRows &&
        updated.status.state === 'completed' &&
        updated.status.updated === importRows,
    };
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The markdown table of a spreadsheet benchmark. */
export function excelTable(bench: ExcelBench): string {
  const growth = bench.rssPeakExportMb - bench.rssBeforeMb;
  return [
    `Spreadsheets: ${bench.rows.toLocaleString('en')} invoices, one request (export) or one import at a time, system key.`,
    '',
    '| operation | rows | rows/s |',
    '|---|---|---|',
    `| export to .xlsx (${bench.workbookMb.toFixed(1)} MB, ${bench.exportSeconds.toFixed(1)} s) | ${bench.rows} | ${bench.exportRowsPerSecond.toFixed(0)} |`,
    `| import .csv, create, client by name | ${bench.importRows} | ${bench.importCreateRowsPerSecond.toFixed(0)} |`,
    `| import the exported .xlsx, update by id | ${bench.importRows} | ${bench.importUpdateRowsPerSecond.toFixed(0)} |`,
    '',
    `Memory during the export: api RSS ${bench.rssBeforeMb.toFixed(0)} MB before, peak ${bench.rssPeakExportMb.toFixed(0)} MB ` +
      `(growth ${growth.toFixed(0)} MB): ${bench.memory.met ? 'met' : 'MISSED'}: ${bench.memory.description}. ` +
      `Of it, at their peaks: the api's own memory (RssAnon) +${bench.anonGrowthMb.toFixed(0)} MB, ` +
      `mapped file pages (RssFile, the database read through SQLite's memory map) +${bench.fileGrowthMb.toFixed(0)} MB.` +
      (bench.complete ? '' : ' Some import rows were not written: the import figures are not valid.'),
  ].join('\n');
}
