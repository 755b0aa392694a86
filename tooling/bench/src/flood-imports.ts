/**
 * The import flood of the noisy-neighbour matrix: tenant A uploads a .csv and an .xlsx of new notes
 * once, then several clients start imports of them (`POST /data/{A}/import`, docs/excel.md), by
 * turns one file then the other, each following its import's status until it ends and starting the
 * next, until the flood ends. A refused start (429) is tried again 50 ms later. Imports still
 * running when the flood ends go on in the api; the matrix waits for the api to go quiet before
 * the next row (and reports how long that took).
 */
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { call, upload } from './excel.js';
import type { Flood, FloodContext } from './floods.js';

/** Rows of each file. */
const rowsOf = (context: FloodContext) => (context.quick ? 300 : 2000);
/** Imports A runs at the same time. */
const IMPORT_CLIENTS = 4;
/** How often a client reads its import's status. */
const POLL_MS = 100;

/** The notes of the files: a subject and a body of about 100 characters. */
function noteRows(rows: number): string[][] {
  return Array.from({ length: rows }, (_, i) => [
    `imported ${i}`,
    `Imported note ${i}: a line of text as a spreadsheet of meeting notes would hold, no more.`,
  ]);
}

function csvOf(rows: readonly string[][]): Buffer {
  return Buffer.from(['subject,body', ...rows.map((row) => row.join(','))].join('\n'));
}

async function xlsxOf(rows: readonly string[][]): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out });
  const sheet = writer.addWorksheet('notes');
  sheet.addRow(['subject', 'body']).commit();
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await writer.commit();
  return Buffer.concat(chunks);
}

interface ImportStatus {
  readonly state: string;
  readonly processed: number;
}

export const IMPORT_FLOOD: Flood = {
  kind: 'imports',
  describe: (c) =>
    `${IMPORT_CLIENTS} clients each run imports of ${rowsOf(c).toLocaleString('en')} new notes ` +
    '(POST /data/{A}/import of an uploaded .csv and .xlsx by turns), one after the other',
  async prepare(context) {
    const { baseUrl, tenantId, key } = context;
    const rows = noteRows(rowsOf(context));
    const files = [
      await upload(baseUrl, tenantId, key, csvOf(rows), 'notes.csv'),
      await upload(baseUrl, tenantId, key, await xlsxOf(rows), 'notes.xlsx'),
    ];
    return async (seconds) => {
      const stop = AbortSignal.timeout(seconds * 1000);
      const outcomes = { ok: 0, refused: 0, other: 0 };
      let finished = 0;
      let processed = 0;
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const client = async (index: number) => {
        for (let turn = index; !stop.aborted; turn += 1) {
          const started = await fetch(`${baseUrl}/data/${tenantId}/import`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ file: files[turn % files.length], typeName: 'notes' }),
          }).catch(() => undefined);
          await started?.arrayBuffer();
          const location = started?.headers.get('location');
          if (started?.status === 201 && location) {
            outcomes.ok += 1;
            let status: ImportStatus = { state: 'running', processed: 0 };
            while (status.state === 'running' && !stop.aborted) {
              await pause(POLL_MS);
              status = (await call(`${baseUrl}${location}`, key)).json as ImportStatus;
            }
            processed += status.processed;
            if (status.state !== 'running') finished += 1;
          } else {
            if (started?.status === 429) outcomes.refused += 1;
            else outcomes.other += 1;
            await pause(50);
          }
        }
      };
      await Promise.all(Array.from({ length: IMPORT_CLIENTS }, (_, index) => client(index)));
      return {
        outcomes,
        note: `${finished} imports ended in the flood, ${Math.round(processed / seconds)} rows/s processed`,
      };
    };
  },
};
