/**
 * Isolated tasks: work on bytes a tenant sent (a workbook, a report template, a large document)
 * runs on a worker thread with its own heap limit and a time limit, so that it can neither block
 * the api's event loop nor, by exhausting memory, end the process that serves every other tenant.
 * A task over its limit is ended (`Worker.terminate`) and its caller gets an
 * {@link IsolatedTaskError} saying which limit it met; the process goes on.
 *
 * A task is a module whose top level calls {@link serveIsolatedTask} (one input, one result) or
 * {@link serveIsolatedStream} (one input, a sequence of values pulled one at a time by the caller,
 * so a slow consumer holds the producer instead of buffering). Inputs, results and streamed values
 * cross the thread boundary by structured clone. The entry is a module URL: built JavaScript, or,
 * where the platform runs from its TypeScript sources, a `.ts` file loaded through `tsx`.
 *
 * The heap limit bounds the JavaScript heap only: buffers outside it (inflated zip bytes, for
 * example) must be bounded by the task itself.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/** The limits of one isolated task. */
export interface IsolationLimits {
  /** The task's JavaScript heap (old generation), in MiB. */
  readonly memoryMb: number;
  /**
   * How long the task may compute, in milliseconds: for a stream, the time spent producing values
   * while the caller waits for them (the time the caller spends on a value is not counted).
   */
  readonly timeoutMs: number;
}

/** Why an isolated task ended without its result. */
export type IsolatedFailure = 'memory' | 'time' | 'error';

/**
 * An isolated task that did not complete: over its memory (`memory`) or time (`time`) limit, or
 * it threw (`error`, with the thrown error's `name` in {@link taskErrorName} and its message).
 */
export class IsolatedTaskError extends Error {
  constructor(
    readonly failure: IsolatedFailure,
    message: string,
    /** The `name` of the error the task threw (failure `error`). */
    readonly taskErrorName: string = 'Error',
  ) {
    super(message);
    this.name = 'IsolatedTaskError';
  }
}

/**
 * The URL of the task module `name` beside the module at `callerUrl` (its `import.meta.url`), with
 * the caller's own extension: `.ts` while the platform runs from its sources, `.js` once built.
 */
export function taskModule(callerUrl: string, name: string): URL {
  const extension = path.extname(new URL(callerUrl).pathname) || '.js';
  return new URL(`./${name}${extension}`, callerUrl);
}

/** Messages between a caller and its task's thread. */
type ToTask = { readonly kind: 'pull' } | { readonly kind: 'stop' };
type FromTask =
  | { readonly kind: 'result'; readonly value: unknown }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly name: string; readonly message: string };

interface TaskData {
  readonly input: unknown;
}

/** The ES module entry of `tsx/esm/api`, found from `from`'s location (its `import` condition). */
function tsxModuleApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports['./esm/api'];
  return path.join(path.dirname(manifest), exports.import.default);
}

interface TsxManifest {
  readonly exports: { readonly './esm/api': { readonly import: { readonly default: string } } };
}

/**
 * The module a worker thread starts with: the entry itself when it is JavaScript; for a `.ts`
 * entry, a bootstrap that registers `tsx` (resolved from the entry's own location) and imports it.
 */
function workerScript(entry: URL): { script: string | URL; evaluated: boolean } {
  if (!entry.pathname.endsWith('.ts')) return { script: entry, evaluated: false };
  const tsx = pathToFileURL(tsxModuleApi(fileURLToPath(entry))).href;
  const script =
    `import(${JSON.stringify(tsx)})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return { script, evaluated: true };
}

function startWorker(entry: URL, input: unknown, limits: IsolationLimits): Worker {
  const { script, evaluated } = workerScript(entry);
  const data: TaskData = { input };
  return new Worker(script, {
    eval: evaluated,
    workerData: data,
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(limits.memoryMb / 8))),
    },
    stdout: false,
    stderr: false,
  });
}

function exitError(error: unknown, limits: IsolationLimits): IsolatedTaskError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new IsolatedTaskError('memory', `The task needed more than its ${limits.memoryMb} MiB of memory.`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new IsolatedTaskError('error', message, error instanceof Error ? error.name : 'Error');
}

function timeError(limits: IsolationLimits): IsolatedTaskError {
  return new IsolatedTaskError('time', `The task took longer than its ${limits.timeoutMs / 1000} s.`);
}

/**
 * A worker thread seen as a sequence of messages: `next()` resolves with the next message, or
 * rejects with the thread's failure; a time limit runs while a caller waits.
 */
class TaskThread {
  private readonly inbox: FromTask[] = [];
  private failure: IsolatedTaskError | null = null;
  private waiter: { resolve: (message: FromTask) => void; reject: (error: Error) => void } | null = null;
  private ended = false;

  constructor(
    private readonly worker: Worker,
    private readonly limits: IsolationLimits,
  ) {
    worker.on('message', (message: FromTask) => this.deliver(message));
    worker.on('error', (error) => this.fail(exitError(error, limits)));
    worker.on('exit', (code) => {
      this.ended = true;
      if (this.waiter !== null)
        this.fail(new IsolatedTaskError('error', `The task ended (exit code ${code}).`));
    });
  }

  post(message: ToTask): void {
    if (!this.ended) this.worker.postMessage(message);
  }

  /** The next message of the task; rejects when it fails, meets its time limit or ended. */
  next(): Promise<FromTask> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.ended) return Promise.reject(new IsolatedTaskError('error', 'The task ended.'));
    return new Promise<FromTask>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(timeError(this.limits)), this.limits.timeoutMs);
      this.waiter = {
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Ends the thread (idempotent). */
  async stop(): Promise<void> {
    this.ended = true;
    await this.worker.terminate();
  }

  private deliver(message: FromTask): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter === null) this.inbox.push(message);
    else waiter.resolve(message);
  }

  private fail(error: IsolatedTaskError): void {
    if (this.failure === null) this.failure = error;
    void this.worker.terminate();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(this.failure);
  }
}

function taskFailure(message: FromTask & { kind: 'error' }): IsolatedTaskError {
  return new IsolatedTaskError('error', message.message, message.name);
}

/**
 * Runs the task of `entry` (a module calling {@link serveIsolatedTask}) on a worker thread with
 * `input`, within `limits`; resolves with its result, or rejects with an {@link IsolatedTaskError}.
 */
export async function runIsolated<Result>(
  entry: URL,
  input: unknown,
  limits: IsolationLimits,
): Promise<Result> {
  const thread = new TaskThread(startWorker(entry, input, limits), limits);
  try {
    const message = await thread.next();
    if (message.kind === 'error') throw taskFailure(message);
    if (message.kind !== 'result') throw new IsolatedTaskError('error', 'The task is not a one-result task.');
    return message.value as Result;
  } finally {
    await thread.stop();
  }
}

/**
 * The values the task of `entry` (a module calling {@link serveIsolatedStream}) produces from
 * `input`, one at a time: the task computes the next value only when the caller asks for it.
 * Leaving the loop early ends the thread; a failure rejects the pending `next()` with an
 * {@link IsolatedTaskError}.
 */
export async function* streamIsolated<Value>(
  entry: URL,
  input: unknown,
  limits: IsolationLimits,
): AsyncGenerator<Value, void, undefined> {
  const thread = new TaskThread(startWorker(entry, input, limits), limits);
  try {
    for (;;) {
      thread.post({ kind: 'pull' });
      const message = await thread.next();
      if (message.kind === 'done') return;
      if (message.kind === 'error') throw taskFailure(message);
      if (message.kind !== 'value') throw new IsolatedTaskError('error', 'The task is not a stream task.');
      yield message.value as Value;
    }
  } finally {
    thread.post({ kind: 'stop' });
    await thread.stop();
  }
}

function taskPort() {
  if (isMainThread || parentPort === null) {
    throw new Error('An isolated task runs on a worker thread started by runIsolated or streamIsolated.');
  }
  return { port: parentPort, input: (workerData as TaskData).input };
}

function errorMessage(error: unknown): FromTask {
  return error instanceof Error
    ? { kind: 'error', name: error.name, message: error.message }
    : { kind: 'error', name: 'Error', message: String(error) };
}

/** The body of a one-result task: called at the top level of the task's module. */
export function serveIsolatedTask<Input, Result>(task: (input: Input) => Result | Promise<Result>): void {
  const { port, input } = taskPort();
  Promise.resolve()
    .then(() => task(input as Input))
    .then(
      (value) => port.postMessage({ kind: 'result', value } satisfies FromTask),
      (error: unknown) => port.postMessage(errorMessage(error)),
    );
}

/**
 * The body of a stream task: called at the top level of the task's module. Each value is sent
 * when the caller pulls it; the iterator is not advanced further until the next pull.
 */
export function serveIsolatedStream<Input, Value>(
  task: (input: Input) => AsyncIterable<Value> | Iterable<Value>,
): void {
  const { port, input } = taskPort();
  let iterator: AsyncIterator<Value> | Iterator<Value> | null = null;
  let busy: Promise<void> = Promise.resolve();
  port.on('message', (message: ToTask) => {
    if (message.kind === 'stop') {
      port.close();
      return;
    }
    busy = busy.then(async () => {
      try {
        if (iterator === null) {
          const source = task(input as Input);
          iterator =
            Symbol.asyncIterator in source
              ? (source as AsyncIterable<Value>)[Symbol.asyncIterator]()
              : (source as Iterable<Value>)[Symbol.iterator]();
        }
        const step = await iterator.next();
        port.postMessage(
          step.done === true ? ({ kind: 'done' } satisfies FromTask) : { kind: 'value', value: step.value },
        );
      } catch (error) {
        port.postMessage(errorMessage(error));
      }
    });
  });
}
