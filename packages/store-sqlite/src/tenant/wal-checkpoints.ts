/**
 * Checkpoints of the tenant databases' write-ahead logs in a thread of their own, off the event
 * loop that serves requests.
 *
 * A checkpoint copies the pages the WAL holds into the database file and syncs both. SQLite runs it
 * in the connection that commits once the WAL holds `wal_autocheckpoint` pages: on the event loop,
 * inside that write, for as long as copying 40 MB takes. A tenant writing large values (a flood of
 * 1 MB creates fills 10,000 pages in about 40 writes) then held every other tenant's requests for
 * 50-100 ms at a time. Here a commit only notes its file; at most every {@link CHECKPOINT_INTERVAL_MS}
 * the thread runs a PASSIVE checkpoint of each file that committed (it waits for nobody: readers
 * and writers go on meanwhile), so the log holds about an interval's writes. The connection's own
 * autocheckpoint stays as a backstop: when the thread lags (the log passed its threshold) the
 * committing connection copies what is left, a short copy, and the log starts over.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleThread, taskModule } from '@odp/core';

/** Checkpoints the WAL of the databases that commit to it (tenant databases, `database.ts`). */
export interface WalCheckpointer {
  /** A write transaction committed to the database `file`: its WAL is checkpointed soon. */
  committed(file: string): void;
  /** Stops checkpointing `file`, closing what the checkpointer holds open of it (before the file is closed). */
  release(file: string): Promise<void>;
}

/** How long the pages a commit wrote wait in the WAL at most before a checkpoint is asked for. */
export const CHECKPOINT_INTERVAL_MS = 100;

/** What the process asks its checkpoint thread (wal-checkpoint-thread.ts). */
export type ToCheckpointThread =
  | { readonly kind: 'checkpoint'; readonly files: readonly string[] }
  | { readonly kind: 'release'; readonly file: string; readonly id: number };

/** The thread's answer to a release. */
export interface FromCheckpointThread {
  readonly kind: 'released';
  readonly id: number;
}

/**
 * The checkpoint thread of a process, started at the first commit and shared by all its tenant
 * databases. It does not keep the process alive. A thread that failed or ended is started again at
 * the next commit; meanwhile the connections' own autocheckpoint keeps the logs bounded.
 */
export class WalCheckpointThread implements WalCheckpointer {
  private worker: Worker | null = null;
  private readonly dirty = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextRelease = 0;
  private readonly releases = new Map<number, () => void>();
  private closed = false;

  constructor(private readonly intervalMs: number = CHECKPOINT_INTERVAL_MS) {}

  committed(file: string): void {
    if (this.closed) return;
    this.dirty.add(file);
    if (this.timer !== null) return;
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async release(file: string): Promise<void> {
    this.dirty.delete(file);
    const worker = this.worker;
    if (worker === null) return;
    const id = this.nextRelease++;
    await new Promise<void>((resolve) => {
      this.releases.set(id, resolve);
      worker.postMessage({ kind: 'release', file, id } satisfies ToCheckpointThread);
    });
  }

  /** Ends the thread (its connections close); commits noted afterwards are ignored. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.dirty.clear();
    const worker = this.worker;
    this.stopped(worker);
    await worker?.terminate();
  }

  private flush(): void {
    this.timer = null;
    const files = [...this.dirty];
    this.dirty.clear();
    if (files.length === 0) return;
    this.thread().postMessage({ kind: 'checkpoint', files } satisfies ToCheckpointThread);
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startModuleThread(taskModule(import.meta.url, 'wal-checkpoint-thread'));
    worker.unref();
    worker.on('message', (message: FromCheckpointThread) => {
      const resolve = this.releases.get(message.id);
      this.releases.delete(message.id);
      resolve?.();
    });
    // A failed thread holds nothing open any more: its releases are done.
    worker.on('error', () => this.stopped(worker));
    worker.on('exit', () => this.stopped(worker));
    this.worker = worker;
    return worker;
  }

  /** Forgets a thread that ended: what waited for it is released. */
  private stopped(worker: Worker | null): void {
    if (worker === null || this.worker !== worker) return;
    this.worker = null;
    for (const resolve of this.releases.values()) resolve();
    this.releases.clear();
  }
}
