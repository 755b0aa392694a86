import { ReportFailedError } from '@odp/core';
import { renderIsolated } from './isolated.js';
import type { ReportJob } from './render.js';

const LIMITS = { memoryMb: 64, timeoutMs: 20_000 };

const job = (
  source: string,
  context: Record<string, unknown>,
  format: 'html' | 'pdf' = 'html',
): ReportJob => ({
  source,
  format,
  language: 'en',
  baseName: 'test',
  context,
});

async function failure(promise: Promise<unknown>): Promise<ReportFailedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ReportFailedError) return error;
    throw error;
  }
  throw new Error('the report was rendered');
}

describe('renderIsolated', () => {
  it('renders in a process of its own and answers the document', async () => {
    const document = await renderIsolated(job('<p>{{name}} ({{_language}})</p>', { name: 'A&B' }), LIMITS);
    expect(document).toMatchObject({ fileName: 'test.html', contentType: 'text/html', language: 'en' });
    expect(Buffer.from(document.bytes).toString('utf8')).toBe('<p>A&amp;B (en)</p>');
  });

  it('renders a PDF of a 9,000-line value', async () => {
    const notes = Array.from({ length: 9000 }, (_, i) => `Line ${i} of the notes`).join('<br>');
    const document = await renderIsolated(job('<p>{{{notes}}}</p>', { notes }, 'pdf'), LIMITS);
    expect(Buffer.from(document.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  }, 30_000);

  it('ends a rendering past its heap limit with reason memory', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => i);
    const error = await failure(
      renderIsolated(job('{{#each rows}}{{#each ../rows}}<p>{{this}}</p>{{/each}}{{/each}}', { rows }), {
        memoryMb: 32,
        timeoutMs: 60_000,
      }),
    );
    expect(error.reason).toBe('memory');
    expect(error.message).toContain('32 MiB');
  }, 70_000);

  it('refuses a rendered document too large for its memory before reading it at once', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const error = await failure(
      renderIsolated(job('{{#each rows}}{{../big}}{{/each}}', { big, rows: Array(400).fill(0) }), {
        memoryMb: 32,
        timeoutMs: 20_000,
      }),
    );
    expect(error.reason).toBe('memory');
    expect(error.code).toBe('REPORT_FAILED');
    expect(error.message).toContain('32 MiB');
  }, 30_000);

  it('ends a rendering past its time limit with reason time', async () => {
    const error = await failure(
      renderIsolated(job('<p>{{name}}</p>', { name: 'x' }), { memoryMb: 64, timeoutMs: 10 }),
    );
    expect(error.reason).toBe('time');
  });

  it('answers a template that does not compile as reason template', async () => {
    const error = await failure(renderIsolated(job('{{#each rows}}', { rows: [] }), LIMITS));
    expect(error.reason).toBe('template');
    expect(error.message).toContain('Parse error');
  });
});
