import { ConflictError, WriteConflictError } from '@odp/core';
import { withWriteRetries } from './unit-of-work.js';

/** One versioned object: a write read at an older version is refused, as the stores do. */
class VersionedCell {
  version = 0;
  values: number[] = [];
  attempts = 0;

  /** Reads, waits `latencyMs` (the engine's round trips), then writes if nobody wrote meanwhile. */
  async append(value: number, latencyMs: number): Promise<void> {
    this.attempts++;
    const read = this.version;
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (this.version !== read) throw new WriteConflictError('cell');
    this.version++;
    this.values.push(value);
  }
}

describe('withWriteRetries', () => {
  it('lands every one of many concurrent writers to one object, with few wasted attempts', async () => {
    const cell = new VersionedCell();
    const writers = Array.from({ length: 20 }, (_, i) => withWriteRetries(() => cell.append(i, 10)));
    await Promise.all(writers);
    expect([...cell.values].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Every writer attempts once at the start; those that lost then take turns, one attempt each.
    expect(cell.attempts).toBeLessThanOrEqual(2 * 20);
  });

  it('answers ConflictError (409) once the time budget is spent, and rethrows other errors at once', async () => {
    let attempts = 0;
    const alwaysLosing = withWriteRetries(async () => {
      attempts++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new WriteConflictError('busy');
    }, 200);
    await expect(alwaysLosing).rejects.toBeInstanceOf(ConflictError);
    await expect(alwaysLosing).rejects.not.toBeInstanceOf(WriteConflictError);
    expect(attempts).toBeGreaterThan(1);

    let calls = 0;
    const failing = withWriteRetries(async () => {
      calls++;
      throw new Error('disk full');
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(calls).toBe(1);
  });
});
