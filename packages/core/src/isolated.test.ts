import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DEFAULT_ISOLATED_TASK_NICENESS,
  DEFAULT_ISOLATED_TASKS,
  IsolatedTaskError,
  limitIsolatedTasks,
  runIsolated,
  setIsolatedTaskNiceness,
  streamIsolated,
} from './isolated.js';

const TASKS = path.join(__dirname, '..', 'test', 'isolated-tasks');
const DOUBLE = pathToFileURL(path.join(TASKS, 'double.ts'));
const COUNT = pathToFileURL(path.join(TASKS, 'count.ts'));
const PRIORITY = pathToFileURL(path.join(TASKS, 'priority.ts'));
const LIMITS = { memoryMb: 32, timeoutMs: 10_000 };

async function failure(promise: Promise<unknown>): Promise<IsolatedTaskError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof IsolatedTaskError) return error;
    throw error;
  }
  throw new Error('the task completed');
}

describe('runIsolated', () => {
  it('answers the task’s result', async () => {
    await expect(runIsolated<number>(DOUBLE, { n: 21 }, LIMITS)).resolves.toBe(42);
  });

  it('rejects with the name and message of what the task threw', async () => {
    const error = await failure(runIsolated(DOUBLE, { n: 3, behave: 'throw' }, LIMITS));
    expect(error.failure).toBe('error');
    expect(error.taskErrorName).toBe('DoublingError');
    expect(error.message).toBe('cannot double 3');
  });

  it('ends a task past its time limit, and the caller goes on', async () => {
    const error = await failure(
      runIsolated(DOUBLE, { n: 1, behave: 'spin' }, { memoryMb: 32, timeoutMs: 1500 }),
    );
    expect(error.failure).toBe('time');
    await expect(runIsolated<number>(DOUBLE, { n: 2 }, LIMITS)).resolves.toBe(4);
  });

  it('ends a task whose very large allocations exceed its memory, and the caller goes on', async () => {
    const error = await failure(
      runIsolated(DOUBLE, { n: 1, behave: 'join' }, { memoryMb: 64, timeoutMs: 20_000 }),
    );
    expect(error.failure).toBe('memory');
    await expect(runIsolated<number>(DOUBLE, { n: 6 }, LIMITS)).resolves.toBe(12);
  });

  it('ends a task past its memory limit, and the caller goes on', async () => {
    const error = await failure(
      runIsolated(DOUBLE, { n: 1, behave: 'hog' }, { memoryMb: 16, timeoutMs: 20_000 }),
    );
    expect(error.failure).toBe('memory');
    await expect(runIsolated<number>(DOUBLE, { n: 5 }, LIMITS)).resolves.toBe(10);
  });
});

describe('streamIsolated', () => {
  it('yields every value of the task in order', async () => {
    const values: number[] = [];
    for await (const value of streamIsolated<number>(COUNT, { to: 5 }, LIMITS)) values.push(value);
    expect(values).toEqual([1, 2, 3, 4, 5]);
  });

  it('rejects at the value where the task threw, after the values before it', async () => {
    const values: number[] = [];
    const error = await failure(
      (async () => {
        for await (const value of streamIsolated<number>(COUNT, { to: 5, failAt: 3 }, LIMITS))
          values.push(value);
      })(),
    );
    expect(values).toEqual([1, 2]);
    expect(error.taskErrorName).toBe('RangeError');
  });

  it('stops the task when the caller leaves the loop early', async () => {
    const values: number[] = [];
    for await (const value of streamIsolated<number>(COUNT, { to: 1_000_000 }, LIMITS)) {
      values.push(value);
      if (value === 3) break;
    }
    expect(values).toEqual([1, 2, 3]);
  });
});

describe('limitIsolatedTasks', () => {
  afterEach(() => limitIsolatedTasks(DEFAULT_ISOLATED_TASKS));

  it('runs at most the limit of tasks at once; the others wait their turn, not their time limit', async () => {
    limitIsolatedTasks(1);
    const slow = runIsolated(DOUBLE, { n: 1, behave: 'spin' }, { memoryMb: 32, timeoutMs: 4000 });
    // Waiting behind the spinning task takes longer than this task's own 3 s limit (which leaves a
    // busy machine time to start its process).
    const queued = runIsolated<number>(DOUBLE, { n: 4 }, { memoryMb: 32, timeoutMs: 3000 });
    expect((await failure(slow)).failure).toBe('time');
    await expect(queued).resolves.toBe(8);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => limitIsolatedTasks(0)).toThrow(RangeError);
  });
});

describe('setIsolatedTaskNiceness', () => {
  afterEach(() => setIsolatedTaskNiceness(DEFAULT_ISOLATED_TASK_NICENESS));
  const own = os.getPriority();

  it('runs a task process below the caller’s priority by the niceness (at most the lowest)', async () => {
    const expected = (niceness: number) => Math.min(19, own + niceness);
    await expect(runIsolated<number>(PRIORITY, {}, LIMITS)).resolves.toBe(
      expected(DEFAULT_ISOLATED_TASK_NICENESS),
    );
    setIsolatedTaskNiceness(3);
    await expect(runIsolated<number>(PRIORITY, {}, LIMITS)).resolves.toBe(expected(3));
    setIsolatedTaskNiceness(0);
    await expect(runIsolated<number>(PRIORITY, {}, LIMITS)).resolves.toBe(own);
  });

  it('refuses a niceness outside 0 to 19', () => {
    expect(() => setIsolatedTaskNiceness(-1)).toThrow(RangeError);
    expect(() => setIsolatedTaskNiceness(20)).toThrow(RangeError);
  });
});
