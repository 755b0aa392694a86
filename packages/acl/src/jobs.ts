/**
 * Progress of a tenant's long-running job (docs/search.md, Rebuild: `POST .../rebuildAccessControl` answers
 * 202 and progress is read at `GET /admin/{tenant}/rebuild`; the class recalculation and sync jobs
 * report the same way, each on its own tracker). One job at a time per tracker; starting another
 * while one runs is a ConflictError (409).
 */
import { ConflictError } from '@odp/core';

export interface RebuildStatus {
  readonly state: 'idle' | 'running' | 'done' | 'failed';
  /** What the job re-derives, e.g. `accessControl`, or `tenant` for the full rebuild (docs/search.md). */
  readonly kind: string | null;
  /** The step a job of several steps is in (the last one once finished); null for a one-step job. */
  readonly phase: string | null;
  /** Objects processed so far (in the current phase, for a job of several steps). */
  readonly processed: number;
  /** Objects the job (or its current phase) has to process, when known before it ends; else null. */
  readonly total: number | null;
  /** The class (plural name) a per-class job works on; null for a job of the whole tenant. */
  readonly typeName: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  /** Client-safe failure message when `state` is `failed`. */
  readonly error: string | null;
}

const IDLE: RebuildStatus = {
  state: 'idle',
  kind: null,
  phase: null,
  processed: 0,
  total: null,
  typeName: null,
  startedAt: null,
  finishedAt: null,
  error: null,
};

export class RebuildTracker {
  private current: RebuildStatus = IDLE;
  private running: Promise<void> | null = null;

  status(): RebuildStatus {
    return this.current;
  }

  /**
   * Starts `run` in the background and answers the running status; throws ConflictError if a job
   * runs. `run` reports progress: objects processed, and optionally the phase it entered and the
   * total it expects. `typeName` names the class of a per-class job.
   */
  start(
    kind: string,
    run: (progress: (processed: number, phase?: string, total?: number) => void) => Promise<unknown>,
    onError: (error: unknown) => void = () => undefined,
    typeName: string | null = null,
  ): RebuildStatus {
    if (this.current.state === 'running')
      throw new ConflictError(`A job (${this.current.kind ?? 'rebuild'}) is already running.`);
    this.current = { ...IDLE, state: 'running', kind, typeName, startedAt: new Date().toISOString() };
    const progress = (processed: number, phase?: string, total?: number): void => {
      this.current = {
        ...this.current,
        processed,
        ...(phase === undefined ? {} : { phase, total: null }),
        ...(total === undefined ? {} : { total }),
      };
    };
    this.running = run(progress).then(
      () => {
        this.current = { ...this.current, state: 'done', finishedAt: new Date().toISOString() };
      },
      (error: unknown) => {
        onError(error);
        this.current = {
          ...this.current,
          state: 'failed',
          finishedAt: new Date().toISOString(),
          error: `The job (${kind}) failed; see the server log.`,
        };
      },
    );
    return this.current;
  }

  /** Resolves when the current job (if any) has finished. */
  async settled(): Promise<void> {
    await this.running;
  }
}
