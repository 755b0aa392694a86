import { LoopSlices } from './loop-slices.js';
import { MEASURED_RUN_CHARS, leadingWithinJsonBytes, writtenJson } from './written-json.js';

/** `count` objects, each with a text of `chars` characters (multi-byte ones among them). */
function objects(count: number, chars = 20): { id: number; text: string; links: { href: string }[] }[] {
  return Array.from({ length: count }, (_, id) => ({
    id,
    text: `naïve ✓ "${id}" `.padEnd(chars, 'x'),
    links: [{ href: `/data/t/invoices/${id}` }],
  }));
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

describe('leadingWithinJsonBytes', () => {
  it('keeps a page within its budget whole, with the text JSON.stringify writes', async () => {
    const page = objects(20);
    const kept = await leadingWithinJsonBytes(page, 1_000_000);
    expect(kept).toBe(page);
    expect(writtenJson(kept)).toBe(JSON.stringify(page));
  });

  it('keeps the leading objects whose bytes fit the budget, counted in UTF-8 bytes', async () => {
    const page = objects(10);
    const firstThree = page.slice(0, 3).reduce((sum, object) => sum + bytesOf(object), 0);
    for (const [budget, count] of [
      [firstThree, 3],
      [firstThree + bytesOf(page[3]) - 1, 3],
      [firstThree + bytesOf(page[3]), 4],
    ] as const) {
      const kept = await leadingWithinJsonBytes(page, budget);
      expect(kept).toEqual(page.slice(0, count));
      expect(writtenJson(kept)).toBe(JSON.stringify(page.slice(0, count)));
    }
  });

  it('keeps the first object whatever its size, so that paging advances', async () => {
    const page = objects(3, 500);
    const kept = await leadingWithinJsonBytes(page, 10);
    expect(kept).toEqual(page.slice(0, 1));
    expect(writtenJson(kept)).toBe(JSON.stringify(page.slice(0, 1)));
  });

  it('cuts a page of many runs inside a later run, its text the runs kept and the objects after them', async () => {
    const page = objects(200, 2_000);
    expect(JSON.stringify(page).length).toBeGreaterThan(4 * MEASURED_RUN_CHARS);
    const budget = page.slice(0, 150).reduce((sum, object) => sum + bytesOf(object), 0) + 10;
    const kept = await leadingWithinJsonBytes(page, budget);
    expect(kept).toHaveLength(150);
    expect(writtenJson(kept)).toBe(JSON.stringify(page.slice(0, 150)));
    const whole = await leadingWithinJsonBytes(page, Number.MAX_SAFE_INTEGER);
    expect(writtenJson(whole)).toBe(JSON.stringify(page));
  });

  it('measures an empty page', async () => {
    const page: object[] = [];
    expect(await leadingWithinJsonBytes(page, 100)).toBe(page);
    expect(writtenJson(page)).toBe('[]');
  });

  it('serialises small objects together and one larger than a run alone, yielding between runs', async () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const small = objects(50);
      await leadingWithinJsonBytes(small, Number.MAX_SAFE_INTEGER);
      expect(stringify.mock.calls.map(([value]) => (value as unknown[]).length)).toEqual([50]);
      stringify.mockClear();

      const order: string[] = [];
      setImmediate(() => order.push('other work'));
      const large = [...objects(2, MEASURED_RUN_CHARS + 1), ...objects(3)];
      const kept = leadingWithinJsonBytes(large, Number.MAX_SAFE_INTEGER, new LoopSlices(0)).then((page) => {
        order.push('measured');
        return page;
      });
      expect(writtenJson(await kept)).toBe(JSON.stringify(large));
      expect(stringify.mock.calls.slice(0, -1).map(([value]) => (value as unknown[]).length)).toEqual([
        1, 1, 3,
      ]);
      expect(order).toEqual(['other work', 'measured']);
      stringify.mockClear();

      // A value nested past the levels an estimate descends counts as large, whatever its text.
      let nested: unknown = 'deep';
      for (let level = 0; level < 40; level += 1) nested = { nested };
      const deep = [...objects(1), { id: 'deep', nested }, ...objects(2)];
      expect(writtenJson(await leadingWithinJsonBytes(deep, Number.MAX_SAFE_INTEGER))).toBe(
        JSON.stringify(deep),
      );
      expect(stringify.mock.calls.slice(0, -1).map(([value]) => (value as unknown[]).length)).toEqual([
        1, 1, 2,
      ]);
    } finally {
      stringify.mockRestore();
    }
  });
});
