/**
 * Isolated tasks: work on bytes a tenant sent (a workbook, a report template, a large document)
 * runs in a child process of its own with a heap limit and a time limit, so that it can neither
 * block the api's event loop nor, by exhausting memory, end the process that serves every other
 * tenant. A task over its limit is ended (SIGKILL past its time; V8 aborts it past its heap) and its
 * caller gets an {@link IsolatedTaskError} saying which limit it met; the api goes on.
 *
 * Why a process and not a worker thread: V8 treats some out-of-memory failures of a worker's heap
 * (a very large allocation, a collection that cannot keep up) as fatal to the whole process, so a
 * thread's `resourceLimits` do not keep one tenant's workbook from ending the api.
 *
 * A task is a module whose top level calls {@link serveIsolatedTask} (one input, one result) or
 * {@link serveIsolatedStream} (one input, a sequence of values pulled one at a time by the caller,
 * so a slow consumer holds the producer instead of buffering). Inputs, results and streamed values
 * cross the process boundary by structured clone (IPC with advanced serialization). The entry is a
 * module URL: built JavaScript, or, where the platform runs from its TypeScript sources, a `.ts`
 * file loaded through `tsx`, its workspace imports resolved to their sources by the `@odp/source`
 * export condition (`taskModule`, task-modules.ts, picks the one beside its caller).
 *
 * The heap limit bounds the JavaScript heap only: buffers outside it (inflated zip bytes, for
 * example) must be bounded by the task itself.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { sourceLoaderArgs } from './task-modules.js';

/** The limits of one isolated task. */
export interface IsolationLimits {
  /** The task's JavaScript heap (old generation), in MiB. */
  readonly memoryMb: number;
  /**
   * How long the task may compute, in milliseconds: for a stream, the time spent producing values
   * while the caller waits for them (the time the caller spends on a value is not counted). The
   * task process's start counts.
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

/** Messages between a caller and its task's process. */
type ToTask =
  { readonly kind: 'input'; readonly input: unknown } | { readonly kind: 'pull' } | { readonly kind: 'stop' };
type FromTask =
  | { readonly kind: 'result'; readonly value: unknown }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly name: string; readonly message: string };

function startProcess(entry: URL, limits: IsolationLimits): ChildProcess {
  const file = fileURLToPath(entry);
  const child = fork(file, [], {
    execArgv: [...sourceLoaderArgs(file), `--max-old-space-size=${limits.memoryMb}`],
    serialization: 'advanced',
    // The task's own output (V8's report of an exhausted heap among it) is not the api's log.
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  lowerPriority(child);
  return child;
}

/**
 * Task processes run this much below the api's processor priority by default
 * (`ODP_ISOLATED_TASK_NICENESS`): about a third of the share of a process at the api's priority. Not
 * lower: a task's time limit is wall-clock time, which a task starved on a busy machine would meet.
 */
export const DEFAULT_ISOLATED_TASK_NICENESS = 5;

/** The highest nice value (the lowest priority) a process can have. */
const LOWEST_PRIORITY = 19;

let taskNiceness = DEFAULT_ISOLATED_TASK_NICENESS;

/**
 * Sets how much lower than this process's the processor priority of its task processes is (a nice
 * increment from 0, the same, to 19; `ODP_ISOLATED_TASK_NICENESS`, read by the platform at start):
 * where the tasks share the machine's cores with the api, the api's requests are scheduled first,
 * and a task (an import's parse, a report's rendering) takes the time they leave.
 */
export function setIsolatedTaskNiceness(niceness: number): void {
  if (!Number.isInteger(niceness) || niceness < 0 || niceness > LOWEST_PRIORITY) {
    throw new RangeError(`The isolated task niceness is an integer from 0 to ${LOWEST_PRIORITY}.`);
  }
  taskNiceness = niceness;
}

/**
 * Lowers a task process's priority by the niceness. A system that refuses (no such process any
 * more, a platform without priorities) leaves the task at the api's priority: it still runs.
 */
function lowerPriority(child: ChildProcess): void {
  if (child.pid === undefined || taskNiceness === 0) return;
  try {
    os.setPriority(child.pid, Math.min(LOWEST_PRIORITY, os.getPriority() + taskNiceness));
  } catch {
    // The task runs at the api's priority.
  }
}

/** What a task process's exit means, when it exits before its caller had its answer. */
function exitFailure(
  code: number | null,
  signal: NodeJS.Signals | null,
  limits: IsolationLimits,
): IsolatedTaskError {
  // V8 aborts a process whose heap is exhausted (SIGABRT, or 134 through a shell).
  if (signal === 'SIGABRT' || code === 134) {
    return new IsolatedTaskError('memory', `The task needed more than its ${limits.memoryMb} MiB of memory.`);
  }
  return new IsolatedTaskError('error', `The task ended (${signal ?? `exit code ${code}`}).`);
}

function timeError(limits: IsolationLimits): IsolatedTaskError {
  return new IsolatedTaskError('time', `The task took longer than its ${limits.timeoutMs / 1000} s.`);
}

/**
 * A task process seen as a sequence of messages: `next()` resolves with the next message, or
 * rejects with the process's failure; a time limit runs while a caller waits.
 */
class TaskProcess {
  private readonly inbox: FromTask[] = [];
  private failure: IsolatedTaskError | null = null;
  private waiter: { resolve: (message: FromTask) => void; reject: (error: Error) => void } | null = null;
  private exited = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly limits: IsolationLimits,
  ) {
    child.on('message', (message: FromTask) => this.deliver(message));
    child.on('error', (error) => this.fail(new IsolatedTaskError('error', error.message)));
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.fail(exitFailure(code, signal, limits));
    });
  }

  post(message: ToTask): void {
    if (!this.exited && this.child.connected) this.child.send(message);
  }

  /** The next message of the task; rejects when it fails, meets its time limit or ended. */
  next(): Promise<FromTask> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.failure !== null) return Promise.reject(this.failure);
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

  /** Ends the process (idempotent) and resolves once it is gone. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await gone;
  }

  private deliver(message: FromTask): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter === null) this.inbox.push(message);
    else waiter.resolve(message);
  }

  private fail(error: IsolatedTaskError): void {
    if (this.failure === null) this.failure = error;
    if (!this.exited) this.child.kill('SIGKILL');
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(this.failure);
  }
}

/**
 * The isolated tasks of this process: at most `limit` task processes at once (each has a heap of
 * its own, so their number bounds the machine's memory that tenants' work can take); a task beyond
 * waits for a slot, first come first served, before its time limit starts. Per-tenant caps (imports,
 * reports) keep one tenant from holding every slot.
 */
class TaskSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private limit: number) {}

  setLimit(limit: number): void {
    this.limit = limit;
    this.grant();
  }

  /** Resolves with the release of a slot once one is free. */
  async take(): Promise<() => void> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.grant();
    };
  }

  private grant(): void {
    while (this.running < this.limit) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      this.running += 1;
      next();
    }
  }
}

/** Task processes one api process runs at once by default (`ODP_ISOLATED_TASKS`). */
export const DEFAULT_ISOLATED_TASKS = 4;

const taskSlots = new TaskSlots(DEFAULT_ISOLATED_TASKS);

/**
 * Sets how many isolated tasks this process runs at once (`ODP_ISOLATED_TASKS`, read by the
 * platform at start); tasks beyond wait their turn. The limit is the process's, as the processes are.
 */
export function limitIsolatedTasks(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError('The isolated task limit is a positive integer.');
  taskSlots.setLimit(limit);
}

function openTask(entry: URL, input: unknown, limits: IsolationLimits): TaskProcess {
  const task = new TaskProcess(startProcess(entry, limits), limits);
  task.post({ kind: 'input', input });
  return task;
}

function taskFailure(message: FromTask & { kind: 'error' }): IsolatedTaskError {
  return new IsolatedTaskError('error', message.message, message.name);
}

/**
 * Runs the task of `entry` (a module calling {@link serveIsolatedTask}) in a process of its own with
 * `input`, within `limits`; resolves with its result, or rejects with an {@link IsolatedTaskError}.
 */
export async function runIsolated<Result>(
  entry: URL,
  input: unknown,
  limits: IsolationLimits,
): Promise<Result> {
  const release = await taskSlots.take();
  const task = openTask(entry, input, limits);
  try {
    const message = await task.next();
    if (message.kind === 'error') throw taskFailure(message);
    if (message.kind !== 'result') throw new IsolatedTaskError('error', 'The task is not a one-result task.');
    return message.value as Result;
  } finally {
    await task.stop();
    release();
  }
}

/**
 * The values the task of `entry` (a module calling {@link serveIsolatedStream}) produces from
 * `input`, one at a time: the task computes the next value only when the caller asks for it.
 * Leaving the loop early ends the process; a failure rejects the pending `next()` with an
 * {@link IsolatedTaskError}.
 */
export async function* streamIsolated<Value>(
  entry: URL,
  input: unknown,
  limits: IsolationLimits,
): AsyncGenerator<Value, void, undefined> {
  const release = await taskSlots.take();
  const task = openTask(entry, input, limits);
  try {
    for (;;) {
      task.post({ kind: 'pull' });
      const message = await task.next();
      if (message.kind === 'done') return;
      if (message.kind === 'error') throw taskFailure(message);
      if (message.kind !== 'value') throw new IsolatedTaskError('error', 'The task is not a stream task.');
      yield message.value as Value;
    }
  } finally {
    task.post({ kind: 'stop' });
    await task.stop();
    release();
  }
}

/**
 * The task side's channel to its caller: the input (the caller's first message), the messages that
 * follow, and a reply. The process ends when its caller goes away (the IPC channel closes).
 */
function taskChannel(): {
  input: Promise<unknown>;
  reply: (message: FromTask) => void;
  onMessage: (handle: (message: ToTask) => void) => void;
} {
  const send = process.send?.bind(process);
  if (send === undefined) {
    throw new Error('An isolated task runs in a process started by runIsolated or streamIsolated.');
  }
  process.once('disconnect', () => process.exit(0));
  const handlers: ((message: ToTask) => void)[] = [];
  let received: (input: unknown) => void = () => undefined;
  const input = new Promise<unknown>((resolve) => (received = resolve));
  process.on('message', (message: ToTask) => {
    if (message.kind === 'input') received(message.input);
    else for (const handle of handlers) handle(message);
  });
  return {
    input,
    reply: (message) => {
      send(message);
    },
    onMessage: (handle) => handlers.push(handle),
  };
}

function errorMessage(error: unknown): FromTask {
  return error instanceof Error
    ? { kind: 'error', name: error.name, message: error.message }
    : { kind: 'error', name: 'Error', message: String(error) };
}

/** The body of a one-result task: called at the top level of the task's module. */
export function serveIsolatedTask<Input, Result>(task: (input: Input) => Result | Promise<Result>): void {
  const channel = taskChannel();
  channel.input
    .then((input) => task(input as Input))
    .then(
      (value) => channel.reply({ kind: 'result', value }),
      (error: unknown) => channel.reply(errorMessage(error)),
    );
}

/**
 * The body of a stream task: called at the top level of the task's module. Each value is sent
 * when the caller pulls it; the iterator is not advanced further until the next pull.
 */
export function serveIsolatedStream<Input, Value>(
  task: (input: Input) => AsyncIterable<Value> | Iterable<Value>,
): void {
  const channel = taskChannel();
  let iterator: AsyncIterator<Value> | Iterator<Value> | null = null;
  let busy: Promise<void> = Promise.resolve();
  channel.onMessage((message) => {
    if (message.kind === 'stop') {
      process.exit(0);
    }
    busy = busy.then(async () => {
      try {
        if (iterator === null) {
          const source = task((await channel.input) as Input);
          iterator =
            Symbol.asyncIterator in source
              ? (source as AsyncIterable<Value>)[Symbol.asyncIterator]()
              : (source as Iterable<Value>)[Symbol.iterator]();
        }
        const step = await iterator.next();
        channel.reply(step.done === true ? { kind: 'done' } : { kind: 'value', value: step.value });
      } catch (error) {
        channel.reply(errorMessage(error));
      }
    });
  });
}
