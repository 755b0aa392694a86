import type { RebuildStatus } from '@odp/acl';
import { progressBar, progressLine } from './progress.js';

const status = (
  processed: number,
  total: number | null,
  state: RebuildStatus['state'] = 'running',
): RebuildStatus => ({
  state,
  kind: 'recalculate',
  phase: null,
  processed,
  total,
  typeName: 'persons',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  error: null,
});

describe('progressLine', () => {
  it('draws a bar of the share done, or the count while the total is unknown', () => {
    expect(progressLine('sync persons', status(150, 300))).toBe(
      `sync persons [${'#'.repeat(15)}${'-'.repeat(15)}] 150/300 50%`,
    );
    expect(progressLine('sync persons', status(0, 0))).toBe(`sync persons [${'#'.repeat(30)}] 0/0 100%`);
    expect(progressLine('sync persons', status(7, null))).toBe('sync persons 7');
  });
});

describe('progressBar', () => {
  it('redraws in place on a terminal and ends the line when the job ends', () => {
    const out: string[] = [];
    const show = progressBar((text) => out.push(text), true, 'x');
    show(status(0, 10));
    show(status(0, 10));
    show(status(10, 10, 'done'));
    expect(out).toEqual([`\rx [${'-'.repeat(30)}] 0/10 0%`, `\rx [${'#'.repeat(30)}] 10/10 100%\n`]);
  });

  it('writes one line per tenth done elsewhere (logs, pipes)', () => {
    const out: string[] = [];
    const show = progressBar((text) => out.push(text), false, 'x');
    for (let processed = 0; processed <= 100; processed += 5) show(status(processed, 100));
    show(status(100, 100, 'done'));
    expect(out).toHaveLength(11);
    expect(out.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
    expect(out.at(-1)).toBe(`x [${'#'.repeat(30)}] 100/100 100%\n`);
  });
});
