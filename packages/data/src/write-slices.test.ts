import type { WriteBatch } from '@odp/core';
import { LoopTurns } from '@odp/testkit';
import { SYSTEM, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';

/**
 * A write whose reading and deciding took a slice of the event loop (a large value validated and
 * measured) yields before its store write: the write's transaction is a step of its own, and a
 * request that arrived meanwhile (another tenant's) is served between the two.
 */
describe('a write in slices of the event loop (SQLite)', () => {
  let crm: CrmFixture;
  /** Whether an immediate queued before each write had run when the store was asked to write. */
  const yieldedBeforeWrite: boolean[] = [];
  let immediateRan = false;
  /** Turns of the event loop counted since the write began, as each write was asked of the store. */
  const turnsBeforeWrite: number[] = [];
  let turns: LoopTurns | undefined;

  beforeAll(async () => {
    // A limit on values: each value's JSON is measured against it (8 MB take milliseconds anywhere).
    crm = await crmFixture(undefined, undefined, {
      maxValueBytes: 16 * 1024 * 1024,
      maxPageBytes: 32 * 1024 * 1024,
    });
    const write = crm.store.write.bind(crm.store);
    crm.store.write = (batch: WriteBatch) => {
      yieldedBeforeWrite.push(immediateRan);
      if (turns) turnsBeforeWrite.push(turns.count);
      return write(batch);
    };
  });
  afterAll(() => crm.close());
  /** Queues an immediate, then creates a note: the write sees whether the immediate ran before it. */
  async function createNote(body: Record<string, unknown>): Promise<string> {
    yieldedBeforeWrite.length = 0;
    immediateRan = false;
    setImmediate(() => (immediateRan = true));
    return (await crm.data.create(SYSTEM, 'notes', body)).id;
  }

  it('yields to the event loop before writing an object whose value took a slice to check', async () => {
    const body = 'a large value of a note '.repeat(350_000);
    const id = await createNote({ subject: 'large', body });
    expect(yieldedBeforeWrite).toEqual([true]);
    const stored = await crm.store.get(id, { kind: 'all' });
    expect(stored?.values['body']).toBe(body);
  });

  it('measures a large value against the limit in slices, turning the event loop meanwhile', async () => {
    const body = 'a large value of a note '.repeat(350_000);
    turnsBeforeWrite.length = 0;
    turns = new LoopTurns();
    await crm.data.create(SYSTEM, 'notes', { subject: 'measured', body });
    turns.stop();
    // Its 8.4 MB took tens of milliseconds of one turn to measure whole; in slices of a
    // millisecond, the loop turns again and again before the store is asked to write.
    expect(turnsBeforeWrite).toHaveLength(1);
    expect(turnsBeforeWrite[0]).toBeGreaterThan(2);
  });
});
