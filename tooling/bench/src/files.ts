/**
 * The files benchmark (`pnpm bench --files`, and part of every full run): upload and download
 * throughput of 1 MB and 50 MB files through the platform (`POST /binaries/<token>` multipart into
 * the blob store, `GET /binaries/<token>` out of it) against a bare `node:http` server streaming
 * the same bytes to and from a file (bare-stream.ts); and the api's resident memory while a 500 MB
 * file streams in and out, which must stay flat (bytes are streamed, never held whole).
 *
 * Requests run one at a time on one connection from this process; every figure is MB/s of file
 * bytes (10^6 bytes). The upload URL request of each upload is timed with it (it is part of an
 * upload); the download URL is requested once, untimed, before the downloads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { residentMb, startChild } from './processes.js';
import type { Child } from './processes.js';

const MB = 1_000_000;
const BOUNDARY = 'odpBenchBoundary7MA4YWxkTrZu0gW';
/** The generated file bytes, reused for every request (one buffer of the largest size). */
const PATTERN = Buffer.alloc(50 * MB, 'odp-bench-file-bytes ');

export interface FileThroughput {
  readonly sizeMb: number;
  readonly transfers: number;
  readonly uploadMbPerSecond: number;
  readonly bareUploadMbPerSecond: number;
  readonly downloadMbPerSecond: number;
  readonly bareDownloadMbPerSecond: number;
}

export interface FileMemory {
  readonly sizeMb: number;
  readonly rssBeforeMb: number;
  readonly rssPeakUploadMb: number;
  readonly rssPeakDownloadMb: number;
  /** Largest growth over `rssBeforeMb` during either transfer. */
  readonly growthMb: number;
  readonly target: { readonly description: string; readonly met: boolean };
}

export interface FileBench {
  readonly blobs: string;
  readonly throughput: FileThroughput[];
  readonly memory: FileMemory;
}

interface Sent {
  readonly status: number;
  readonly body: string;
  readonly bytes: number;
}

/** One request; `body` is written in 1 MB slices of PATTERN, `size` bytes in all. */
function send(
  url: string,
  options: {
    method: string;
    headers?: Record<string, string>;
    prefix?: string;
    size?: number;
    suffix?: string;
  },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const prefix = Buffer.from(options.prefix ?? '');
    const suffix = Buffer.from(options.suffix ?? '');
    const size = options.size ?? 0;
    const length = options.method === 'GET' ? 0 : prefix.length + size + suffix.length;
    const request = http.request(
      url,
      {
        method: options.method,
        agent: keepAlive,
        headers: {
          ...options.headers,
          ...(options.method === 'GET' ? {} : { 'content-length': String(length) }),
        },
      },
      (response) => {
        let bytes = 0;
        const kept: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (kept.length < 4 && options.method !== 'GET') kept.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(kept).toString(), bytes }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (options.method === 'GET') {
      request.end();
      return;
    }
    request.write(prefix);
    const write = (offset: number): void => {
      while (offset < size) {
        const slice = PATTERN.subarray(0, Math.min(MB, size - offset));
        offset += slice.length;
        if (!request.write(slice)) {
          request.once('drain', () => write(offset));
          return;
        }
      }
      request.end(suffix);
    };
    write(0);
  });
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

function expectOk(sent: Sent, what: string): Sent {
  if (sent.status < 200 || sent.status > 299)
    throw new Error(`${what}: ${sent.status} ${sent.body.slice(0, 200)}`);
  return sent;
}

interface Platform {
  readonly child: Child;
  readonly tenantId: string;
  readonly key: string;
}

function getJson(url: string, key?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: keepAlive, headers: key ? { 'x-api-key': key } : {} }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`GET ${url}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text) as unknown);
        });
      })
      .on('error', reject);
  });
}

async function upload(api: Platform, size: number, name: string): Promise<{ href: string }> {
  const url = await getJson(`${api.child.baseUrl}/data/${api.tenantId}/upload`, api.key);
  const sent = expectOk(
    await send(String(url), {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      prefix:
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
      size,
      suffix: `\r\n--${BOUNDARY}--\r\n`,
    }),
    'upload',
  );
  const [descriptor] = JSON.parse(sent.body) as { href: string; size: number }[];
  if (!descriptor || descriptor.size !== size)
    throw new Error(`upload stored ${descriptor?.size} of ${size} bytes`);
  return descriptor;
}

/** Stores the upload in a new `documents` object; resolves the signed download URL of its file. */
async function downloadUrl(api: Platform, descriptor: unknown): Promise<string> {
  const created = await new Promise<string>((resolve, reject) => {
    const body = JSON.stringify({ title: 'bench', file: descriptor });
    const request = http.request(
      `${api.child.baseUrl}/data/${api.tenantId}/documents`,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          'x-api-key': api.key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 201
            ? resolve(String(response.headers.location))
            : reject(new Error(`create: ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
  const object = (await getJson(`${api.child.baseUrl}${created}`, api.key)) as { file: { href: string } };
  return String(await getJson(`${api.child.baseUrl}${object.file.href}`, api.key));
}

async function timed(times: number, work: () => Promise<number>): Promise<number> {
  let bytes = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < times; i++) bytes += await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return bytes / MB / seconds;
}

const rssMb = (pid: number): number => residentMb(pid).rss;

/** The peak RSS of `pid` while `work` runs, sampled every 50 ms. */
async function peakRss(pid: number, work: () => Promise<unknown>): Promise<number> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssMb(pid));
}

const SIZES = [
  { sizeMb: 1, transfers: 40 },
  { sizeMb: 50, transfers: 4 },
];
const STREAMED_MB = 500;
/** Flat: the api grows by less than this while the 500 MB file streams through. */
const FLAT_GROWTH_MB = 64;

/**
 * Runs the files benchmark on a fresh platform (`ODP_BLOBS=fs`, or the MinIO of `s3` when given)
 * with quick transfer counts when `quick`.
 */
export async function measureFiles(options: {
  quick: boolean;
  log: (line: string) => void;
  s3?: { endpoint: string; accessKey: string; secretKey: string };
}): Promise<FileBench> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-files-'));
  const blobsEnv: Record<string, string> = options.s3
    ? {
        ODP_BLOBS: 's3',
        ODP_S3_ENDPOINT: options.s3.endpoint,
        ODP_S3_BUCKET: 'odp-bench',
        ODP_S3_ACCESS_KEY: options.s3.accessKey,
        ODP_S3_SECRET_KEY: options.s3.secretKey,
      }
    : {};
  const child = await startChild(
    'apps/api/src/embedded.ts',
    { ODP_DATA_DIR: dataDir, ODP_MAX_UPLOAD_BYTES: String(600 * MB), ...blobsEnv },
    'ODP_READY',
  );
  const ready = JSON.parse(child.ready) as { tenantId: string; systemKey: string };
  const api: Platform = { child, tenantId: ready.tenantId, key: ready.systemKey };
  const bare = await startChild('tooling/bench/src/bare-stream.ts', {}, 'LISTENING');
  try {
    const throughput: FileThroughput[] = [];
    for (const { sizeMb, transfers: full } of SIZES) {
      const transfers = options.quick ? 1 : full;
      const size = sizeMb * MB;
      options.log(`  files: ${transfers} x ${sizeMb} MB up and down`);
      let last: { href: string } = { href: '' };
      const uploadMbPerSecond = await timed(transfers, async () => {
        last = await upload(api, size, `bench-${sizeMb}.bin`);
        return size;
      });
      const bareUploadMbPerSecond = await timed(transfers, async () => {
        expectOk(await send(`${bare.baseUrl}/`, { method: 'POST', size }), 'bare upload');
        return size;
      });
      const url = await downloadUrl(api, {
        ...last,
        fileName: `bench-${sizeMb}.bin`,
        contentType: 'application/octet-stream',
        size,
      });
      const downloadMbPerSecond = await timed(transfers, async () => {
        const got = expectOk(await send(url, { method: 'GET' }), 'download');
        if (got.bytes !== size) throw new Error(`download served ${got.bytes} of ${size} bytes`);
        return got.bytes;
      });
      const bareDownloadMbPerSecond = await timed(transfers, async () => {
        return expectOk(await send(`${bare.baseUrl}/`, { method: 'GET' }), 'bare download').bytes;
      });
      throughput.push({
        sizeMb,
        transfers,
        uploadMbPerSecond,
        bareUploadMbPerSecond,
        downloadMbPerSecond,
        bareDownloadMbPerSecond,
      });
    }
    options.log(`  files: ${STREAMED_MB} MB through the api, sampling its memory`);
    const rssBeforeMb = rssMb(child.pid);
    let descriptor: { href: string } = { href: '' };
    const rssPeakUploadMb = await peakRss(child.pid, async () => {
      descriptor = await upload(api, STREAMED_MB * MB, 'large.bin');
    });
    const url = await downloadUrl(api, {
      ...descriptor,
      fileName: 'large.bin',
      contentType: 'application/octet-stream',
      size: STREAMED_MB * MB,
    });
    const rssPeakDownloadMb = await peakRss(child.pid, async () => {
      const got = expectOk(await send(url, { method: 'GET' }), 'large download');
      if (got.bytes !== STREAMED_MB * MB) throw new Error(`large download served ${got.bytes} bytes`);
    });
    const growthMb = Math.max(rssPeakUploadMb, rssPeakDownloadMb) - rssBeforeMb;
    return {
      blobs: options.s3 ? 's3 (MinIO)' : 'fs',
      throughput,
      memory: {
        sizeMb: STREAMED_MB,
        rssBeforeMb,
        rssPeakUploadMb,
        rssPeakDownloadMb,
        growthMb,
        target: {
          description: `api RSS grows by less than ${FLAT_GROWTH_MB} MB while ${STREAMED_MB} MB streams in and out`,
          met: growthMb < FLAT_GROWTH_MB,
        },
      },
    };
  } finally {
    keepAlive.destroy();
    await bare.stop();
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((part / whole) * 100).toFixed(0)}%` : 'n/a');

/** The markdown table of a files benchmark. */
export function filesTable(bench: FileBench): string {
  const lines = [
    `Files (blob store ${bench.blobs}), one transfer at a time, MB/s of file bytes; bare = node:http streaming the same bytes to and from a file.`,
    '',
    '| file | transfers | upload MB/s | bare upload MB/s | % of bare | download MB/s | bare download MB/s | % of bare |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of bench.throughput) {
    lines.push(
      `| ${row.sizeMb} MB | ${row.transfers} | ${row.uploadMbPerSecond.toFixed(0)} | ${row.bareUploadMbPerSecond.toFixed(0)} | ` +
        `${pct(row.uploadMbPerSecond, row.bareUploadMbPerSecond)} | ${row.downloadMbPerSecond.toFixed(0)} | ` +
        `${row.bareDownloadMbPerSecond.toFixed(0)} | ${pct(row.downloadMbPerSecond, row.bareDownloadMbPerSecond)} |`,
    );
  }
  const memory = bench.memory;
  lines.push(
    '',
    `Memory while ${memory.sizeMb} MB streams through the api: RSS ${memory.rssBeforeMb.toFixed(0)} MB before, ` +
      `peak ${memory.rssPeakUploadMb.toFixed(0)} MB uploading, ${memory.rssPeakDownloadMb.toFixed(0)} MB downloading ` +
      `(growth ${memory.growthMb.toFixed(0)} MB): ${memory.target.met ? 'met' : 'MISSED'}: ${memory.target.description}.`,
  );
  return lines.join('\n');
}
