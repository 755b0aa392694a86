/**
 * Refusals of a tenant's share (TenantShareError, 429) are answered after a short hold. A client
 * that sends its next request as soon as it is refused, without honouring `Retry-After`, would
 * otherwise make the refusals a flood of their own: each one costs the api the request's parsing,
 * its authentication and an answer, and at hundreds a second they take the time the fair share
 * keeps for the other tenants. Held, a connection of that client sends at most one request per
 * hold. A client that honours `Retry-After` (a second or more) does not notice.
 *
 * The request no longer counts in its tenant's share while it is held: it is released first, so a
 * held answer neither takes one of the tenant's turns nor is charged as work. At most `maxHeld`
 * answers are held at once in a process; past them a refusal is answered at once (a held answer
 * keeps a socket and a timer, not work).
 */
import type { Response } from 'express';

/** How long a refusal of a tenant's share is held before it is answered. */
export const REFUSAL_HOLD_MS = 250;
/** Answers held at once in one api process, past which refusals are answered at once. */
export const MAX_HELD_REFUSALS = 1000;

export class RefusalHold {
  private held = 0;

  constructor(
    private readonly holdMs: number = REFUSAL_HOLD_MS,
    private readonly maxHeld: number = MAX_HELD_REFUSALS,
  ) {}

  /** Calls `answer` after the hold (at once past `maxHeld`); never if the client went away first. */
  answer(res: Response, answer: () => void): void {
    if (this.held >= this.maxHeld) {
      answer();
      return;
    }
    this.held++;
    const timer = setTimeout(() => {
      res.off('close', abandon);
      this.held--;
      answer();
    }, this.holdMs);
    const abandon = () => {
      clearTimeout(timer);
      this.held--;
    };
    res.once('close', abandon);
  }
}
