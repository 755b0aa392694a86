import { RateLimitedError } from '@odp/core';
import { STREAM_RETRY_AFTER_SECONDS, TenantEventStreams } from './event-streams.js';

describe('TenantEventStreams', () => {
  it('admits up to the limit, refuses one more with Retry-After, and admits again once one is released', () => {
    const streams = new TenantEventStreams(2);
    const release = streams.admit(() => undefined);
    streams.admit(() => undefined);
    expect(() => streams.admit(() => undefined)).toThrow(RateLimitedError);
    try {
      streams.admit(() => undefined);
    } catch (error) {
      expect((error as RateLimitedError).retryAfterSeconds).toBe(STREAM_RETRY_AFTER_SECONDS);
    }
    release();
    expect(() => streams.admit(() => undefined)).not.toThrow();
  });

  it('ends every open stream at once and admits none afterwards', () => {
    const streams = new TenantEventStreams(4);
    const ended: string[] = [];
    streams.admit(() => ended.push('a'));
    const releaseB = streams.admit(() => ended.push('b'));
    streams.admit(() => ended.push('c'));
    releaseB();
    streams.endAll();
    expect(ended).toEqual(['a', 'c']);
    expect(() => streams.admit(() => undefined)).toThrow(RateLimitedError);
  });
});
