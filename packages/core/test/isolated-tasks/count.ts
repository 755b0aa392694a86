/** An isolated stream task for the tests of `isolated.ts`: counts up to `to`, reporting each pull. */
import { serveIsolatedStream } from '../../src/isolated.js';

interface Input {
  readonly to: number;
  readonly failAt?: number;
}

serveIsolatedStream(function* count(input: Input) {
  for (let n = 1; n <= input.to; n += 1) {
    if (n === input.failAt) throw new RangeError(`no ${n}`);
    yield n;
  }
});
