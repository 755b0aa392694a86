/** An isolated task for the tests of `isolated.ts`: doubles a number, or fails as asked. */
import { serveIsolatedTask } from '../../src/isolated.js';

interface Input {
  readonly n: number;
  readonly behave?: 'throw' | 'spin' | 'hog';
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
  return input.n * 2;
});
