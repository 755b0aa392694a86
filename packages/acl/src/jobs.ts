/**
 * Progress of a tenant's long-running rebuild (docs/search.md, Rebuild: `POST .../rebuildAccessControl` answers
 * 202 and progress is read at `GET /admin/{tenant}/rebuild`). One job at a time per tenant; starting
 * another while one runs is a ConflictError (409).
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

  /** Starts `run` in the background and answers the running status; throws ConflictError if a job runs. */
  start(
    kind: string,
    run: (progress: (processed: number, phase?: string) => void) => Promise<unknown>,
    onError: (error: unknown) => void = () => undefined,
  ): RebuildStatus {
    if (this.current.state === 'running') throw new ConflictError('A rebuild is already running.');
    this.current = { ...IDLE, state: 'running', kind, startedAt: new Date().toISOString() };
    const progress = (processed: number, phase?: string): void => {
      this.current = { ...this.current, processed, ...(phase === undefined ? {} : { phase }) };
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
          error: 'The rebuild failed; see the server log.',
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
