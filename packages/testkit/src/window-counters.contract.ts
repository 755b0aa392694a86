/**
 * The WindowCounters contract, backend-neutral: every adapter runs it from its own test file.
 * `open` returns a handle on a fresh, empty set of counters per call; two calls with the same
 * `shared` key must return two handles on the same counters (two processes' connections), so the
 * limit is checked across handles.
 */
import type { WindowCounters } from '@odp/core';

const T0 = new Date('2030-01-01T10:00:00.000Z');
const END = new Date('2030-01-01T11:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

export function describeWindowCountersContract(
  name: string,
  open: (shared?: string) => Promise<WindowCounters>,
): void {
  describe(`WindowCounters contract: ${name}`, () => {
    const opened: WindowCounters[] = [];
    const handle = async (shared?: string) => {
      const counters = await open(shared);
      opened.push(counters);
      return counters;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((counters) => counters.close()));
    });

    it('takes up to the limit, then refuses; keys count apart', async () => {
      const counters = await handle();
      const takes: boolean[] = [];
      for (let i = 0; i < 4; i++) takes.push(await counters.take('a', 3, END, T0));
      expect(takes).toEqual([true, true, true, false]);
      expect(await counters.take('b', 3, END, T0)).toBe(true);
      expect(await counters.read(['a', 'b', 'never'], T0)).toEqual([3, 1, 0]);
    });

    it('adds amounts whatever the value and answers the sum', async () => {
      const counters = await handle();
      expect(await counters.add('units', 1200, END, T0)).toBe(1200);
      expect(await counters.add('units', 800, END, T0)).toBe(2000);
      expect(await counters.add('units', 0, END, T0)).toBe(2000);
      expect(await counters.read(['units'], T0)).toEqual([2000]);
    });

    it('forgets a counter once its window has ended', async () => {
      const counters = await handle();
      await counters.take('short', 1, at(1000), T0);
      expect(await counters.take('short', 1, at(1000), at(999))).toBe(false);
      expect(await counters.read(['short'], at(1000))).toEqual([0]);
      expect(await counters.take('short', 1, at(2000), at(1000))).toBe(true);
      expect(await counters.read(['short'], at(1500))).toEqual([1]);
    });

    it('never lets concurrent takes through two handles pass the limit', async () => {
      const shared = `shared-${Math.random().toString(36).slice(2)}`;
      const [one, two] = [await handle(shared), await handle(shared)];
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two)!.take('race', 7, END, T0)),
      );
      expect(results.filter(Boolean)).toHaveLength(7);
      expect(await two!.read(['race'], T0)).toEqual([7]);
      expect(await one!.add('race', 2, END, T0)).toBe(9);
    });
  });
}
