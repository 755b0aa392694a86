import { RememberedReads } from './remembered-reads.js';

describe('RememberedReads', () => {
  it('load a key once until it is forgotten', async () => {
    let loads = 0;
    const reads = new RememberedReads<number>(() => undefined, 10);
    const load = async () => ++loads;
    expect(await reads.read('a', load)).toBe(1);
    expect(await reads.read('a', load)).toBe(1);
    reads.forget();
    expect(await reads.read('a', load)).toBe(2);
  });

  it('keep no value whose load started before a forgetting', async () => {
    let loads = 0;
    const reads = new RememberedReads<number>(() => undefined, 10);
    const slow = reads.read('a', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return ++loads;
    });
    reads.forget();
    expect(await slow).toBe(1);
    expect(await reads.read('a', async () => ++loads)).toBe(2);
  });

  it('forget everything once another process committed', async () => {
    let commits = 7;
    let loads = 0;
    const reads = new RememberedReads<number>(() => commits, 10);
    expect(await reads.read('a', async () => ++loads)).toBe(1);
    expect(await reads.read('a', async () => ++loads)).toBe(1);
    commits += 1;
    expect(await reads.read('a', async () => ++loads)).toBe(2);
  });

  it('start over when full, and tell whether a remembered value satisfies a test', async () => {
    const reads = new RememberedReads<string>(() => undefined, 2);
    await reads.read('a', async () => 'x');
    await reads.read('b', async () => 'y');
    expect(reads.holds((value) => value === 'x')).toBe(true);
    await reads.read('c', async () => 'z');
    expect(reads.holds((value) => value === 'x')).toBe(false);
    expect(reads.holds((value) => value === 'z')).toBe(true);
  });
});
