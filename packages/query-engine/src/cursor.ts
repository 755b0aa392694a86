/**
 * List cursors: the `after` parameter a list's `next` link carries (keyset paging). A cursor holds
 * the position of the previous page's last row (its sort key and creation sequence, see
 * `ListPosition`), sealed (`@odp/core` sealed.ts) with
 * a key derived from `ODP_SECRET_KEY` for this purpose: clients can read it but not forge or alter
 * it, every api instance of a deployment accepts it, and it is bound to its query (tenant, class,
 * related anchor, filters, sort), so it never continues another list.
 */
import { createHash } from 'node:crypto';
import { invalidSearchCursor, purposeKey, seal, unseal } from '@odp/core';
import type { ListPlan, ListPosition } from '@odp/core';

interface Sealed {
  /** The query fingerprint. */
  readonly q: string;
  /** The position's key and sequence. */
  readonly k: string | number | null;
  readonly s: number;
}

export class ListCursors {
  private readonly key: Buffer;

  /** `scope` names the tenant, so a cursor of one tenant's list is refused by another's. */
  constructor(
    secretKey: string,
    private readonly scope: string,
  ) {
    this.key = purposeKey(secretKey, 'list-cursors');
  }

  /** The cursor of the page that follows `position` in `plan`'s list. */
  seal(plan: ListPlan, position: ListPosition): string {
    const sealed: Sealed = { q: this.fingerprint(plan), k: position.key, s: position.seq };
    return seal(sealed, this.key);
  }

  /**
   * The position after which the page of cursor `text` starts in `plan`'s list; a ValidationError
   * (400) naming `after` when the text is not a cursor of this list (damaged, forged, of another
   * tenant, class, related anchor, filter or sort).
   */
  open(text: string, plan: ListPlan): ListPosition {
    const sealed = unseal(text, this.key) as Partial<Sealed> | null;
    const key = sealed?.k;
    if (
      sealed === null ||
      typeof sealed !== 'object' ||
      sealed.q !== this.fingerprint(plan) ||
      !(key === null || typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key))) ||
      !Number.isSafeInteger(sealed.s)
    ) {
      throw invalidSearchCursor('The after cursor is not a cursor of this list.', 'after');
    }
    return { key, seq: sealed.s as number };
  }

  /** Fingerprints by plan: a page opens its cursor and seals the next one with the same plan. */
  private readonly fingerprints = new WeakMap<ListPlan, string>();

  private fingerprint(plan: ListPlan): string {
    let fingerprint = this.fingerprints.get(plan);
    if (fingerprint === undefined) {
      fingerprint = createHash('sha256')
        .update(
          JSON.stringify([this.scope, plan.className, plan.related ?? null, plan.filters, plan.sort ?? null]),
        )
        .digest('base64url')
        .slice(0, 22);
      this.fingerprints.set(plan, fingerprint);
    }
    return fingerprint;
  }
}
