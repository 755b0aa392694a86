/** An isolated task for the tests of `isolated.ts`: doubles a number, or fails as asked. */
import { serveIsolatedTask } from '../../src/isolated.js';

interface Input {
  readonly n: number;
  readonly behave?: 'throw' | 'spin' | 'hog' | 'join';
}

serveIsolatedTask((input: Input) => {
  if (input.behave === 'throw') {
    const error = new Error(`cannot double ${input.n}`);
    error.name = 'DoublingError';
    throw error;
  }
  if (input.behave === 'spin') for (;;);
  if (input.behave === 'hog') {
    const hoard: string[] = [];
    for (let index = 0; ; index += 1) hoard.push(`${index}`.repeat(1000));
  }
  if (input.behave === 'join') {
    // Very large strings, each made at once: past the heap, fatal to a whole V8 instance (a worker
    // thread's would take its process with it).
    const mebibyte = 'x'.repeat(1 << 20);
    const kept: string[] = [];
    for (;;) kept.push(Array.from({ length: 100 }, () => mebibyte).join(''));
  }
  return input.n * 2;
});
