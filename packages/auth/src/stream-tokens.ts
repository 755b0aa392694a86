/**
 * Event-stream tokens: a browser's `EventSource` cannot send headers, so a client with a credential
 * asks for a short-lived token (`GET /data/{tenant}/eventStream/token`) and opens
 * `/data/{tenant}/eventStream?token=...` without one (docs/events.md). A token is sealed with the
 * `stream-tokens` purpose key, names one tenant and the account it was issued to, opens and re-opens
 * (an `EventSource` reconnects with the same URL) only that tenant's event stream, and expires after
 * {@link STREAM_TOKEN_TTL_MS}. The account is checked again on every use (`openStreamToken`).
 */
import { isProfileActive, purposeKey, seal, unseal } from '@odp/core';
import type { Account, PlatformRegistry } from '@odp/core';
import { accountOf } from './authenticate.js';

/** How long a token opens the event stream after it was issued. */
export const STREAM_TOKEN_TTL_MS = 15 * 60 * 1000;

interface Payload {
  readonly t: string;
  /** The profile of a user account; null for the system account. */
  readonly p: string | null;
  readonly e: number;
}

export interface StreamToken {
  readonly token: string;
  readonly expiresAt: string;
}

export class StreamTokens {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = purposeKey(secretKey, 'stream-tokens');
  }

  issue(account: Account, now: Date): StreamToken {
    const expires = now.getTime() + STREAM_TOKEN_TTL_MS;
    const payload: Payload = {
      t: account.tenantId,
      p: account.kind === 'user' ? account.profileId : null,
      e: expires,
    };
    return { token: seal(payload, this.key), expiresAt: new Date(expires).toISOString() };
  }

  /**
   * The account a token opens the stream of `tenantId` as, taken from the registry now (a
   * suspended or lapsed profile, or one whose role changed, counts as it is now); null for a token
   * that is forged, expired, of another tenant or of a profile that can no longer act.
   */
  async open(
    token: string,
    tenantId: string,
    registry: PlatformRegistry,
    now: Date,
  ): Promise<Account | null> {
    const payload = unseal(token, this.key) as Payload | null;
    if (payload === null || payload.t !== tenantId || !(payload.e > now.getTime())) return null;
    if (payload.p === null) return { kind: 'system', tenantId };
    const profile = await registry.getProfile(tenantId, payload.p);
    return profile !== null && isProfileActive(profile, now) ? accountOf(profile) : null;
  }
}
