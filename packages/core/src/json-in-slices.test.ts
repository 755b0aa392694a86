import { STRING_PIECE_CHARS, jsonBytesInSlices, jsonChunksInSlices, jsonInSlices } from './json-in-slices.js';
import { LoopSlices } from './loop-slices.js';
import { leadingWithinJsonBytes } from './written-json.js';

describe('jsonInSlices', () => {
  it('writes the text JSON.stringify writes, for a page and for other values', async () => {
    const page = {
      _embedded: {
        invoices: Array.from({ length: 50 }, (_, index) => ({
          _id: `id ${index}`,
          amount: index / 3,
          note: 'naïve ✓ "quoted" \\ \u2028',
          skipped: undefined,
          at: new Date(Date.UTC(2026, 10, index + 1)),
          lines: [1, null, { nested: [true] }],
        })),
      },
      _links: { self: { href: '/data/t/invoices?size=50' }, next: undefined },
      empty: [],
      sparse: [undefined, () => 1],
    };
    for (const value of [page, [], {}, 'text', 3, null, new Date(0), { toJSON: () => 'custom' }, [page]]) {
      expect(await jsonInSlices(value)).toBe(JSON.stringify(value));
    }
    expect(await jsonInSlices(undefined)).toBeUndefined();
  });

  it('writes a page measured for its byte budget from the text measured, serialising it once', async () => {
    let serialised = 0;
    const measured = { toJSON: () => ({ n: ++serialised, text: 'naïve ✓' }) };
    const other = { toJSON: () => ({ n: ++serialised }) };
    const page = await leadingWithinJsonBytes([measured, other], 1_000);
    expect(serialised).toBe(2);
    expect(await jsonInSlices({ _embedded: { objects: page } })).toBe(
      '{"_embedded":{"objects":[{"n":1,"text":"naïve ✓"},{"n":2}]}}',
    );
    expect(serialised).toBe(2);
  });

  it('yields to the event loop between elements once a slice is used up', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const text = jsonInSlices([{ a: 1 }, { b: 2 }, { c: 3 }], new LoopSlices(0)).then((done) => {
      order.push('serialised');
      return done;
    });
    expect(await text).toBe('[{"a":1},{"b":2},{"c":3}]');
    expect(order).toEqual(['other work', 'serialised']);
  });

  it('serialises a short array in one go while its slice lasts', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    await jsonInSlices([{ a: 1 }, { b: 2 }], new LoopSlices(60_000));
    order.push('serialised');
    expect(order).toEqual(['serialised']);
  });

  it('writes a long string in pieces, pairs of surrogates whole, as JSON.stringify writes it', async () => {
    const piece = STRING_PIECE_CHARS;
    const emoji = '\u{1F600}';
    const strings = [
      'x'.repeat(piece + 1),
      // a pair straddling the end of the first piece, then one at the end of the second
      `${'a'.repeat(piece - 1)}${emoji}${'b'.repeat(piece - 2)}${emoji}tail`,
      // lone surrogates (escaped by JSON.stringify) at and around the ends of pieces
      `${'c'.repeat(piece - 1)}\ud800${'d'.repeat(piece)}\udc00\ud83d`,
      `${'"quoted" \\ \n naïve ✓ \u2028 \u0001'.repeat(Math.ceil((3 * piece) / 30))}`,
    ];
    for (const text of strings) {
      expect(await jsonInSlices(text)).toBe(JSON.stringify(text));
      expect(await jsonInSlices({ body: text, list: [text, 1] })).toBe(
        JSON.stringify({ body: text, list: [text, 1] }),
      );
      expect(await jsonBytesInSlices({ body: text })).toBe(Buffer.byteLength(JSON.stringify({ body: text })));
    }
  });

  it('yields to the event loop between the pieces of a long string', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const text = 'y'.repeat(2 * STRING_PIECE_CHARS);
    const written = jsonInSlices({ body: text }, new LoopSlices(0)).then((done) => {
      order.push('serialised');
      return done;
    });
    expect(await written).toBe(JSON.stringify({ body: text }));
    expect(order).toEqual(['other work', 'serialised']);
  });

  it('measures nothing for what JSON cannot hold', async () => {
    expect(await jsonBytesInSlices(undefined)).toBe(0);
    expect(await jsonBytesInSlices({ skipped: undefined })).toBe(2);
  });

  it('cuts the text into chunks of at least the size asked, the last one aside', async () => {
    const page = {
      objects: Array.from({ length: 3_000 }, (_, index) => ({ index, text: 'naïve ✓ '.repeat(index % 7) })),
      body: 'z'.repeat(3 * STRING_PIECE_CHARS + 5),
    };
    const chunks = await jsonChunksInSlices(page, STRING_PIECE_CHARS);
    expect(chunks.join('')).toBe(JSON.stringify(page));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.slice(0, -1).every((chunk) => chunk.length >= STRING_PIECE_CHARS)).toBe(true);
    expect(await jsonChunksInSlices({ small: true }, STRING_PIECE_CHARS)).toEqual(['{"small":true}']);
    expect(await jsonChunksInSlices(undefined, STRING_PIECE_CHARS)).toEqual([]);
  });
});
