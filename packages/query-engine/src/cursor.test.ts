import { ValidationError, seal } from '@odp/core';
import type { ListPlan } from '@odp/core';
import { ListCursors } from './cursor.js';

const plan: ListPlan = {
  className: 'crm.company',
  filters: [{ kind: 'equals', field: 'kind', type: 'LIST', value: 'bv' }],
  sort: { key: { kind: 'field', field: 'legalName', type: 'TEXT' }, direction: 'asc' },
  page: 0,
  size: 20,
};

describe('ListCursors', () => {
  const cursors = new ListCursors('the secret key', 'tenant-a');

  it('opens its own cursor of the same list to the position it sealed, whatever the paging', () => {
    for (const position of [
      { key: 'Acme', seq: 7 },
      { key: 12.5, seq: 3 },
      { key: null, seq: 1 },
    ]) {
      const text = cursors.seal(plan, position);
      expect(cursors.open(text, { ...plan, page: 4, size: 3 })).toEqual(position);
    }
  });

  const refused = (text: string, other: ListPlan = plan, by: ListCursors = cursors): unknown => {
    try {
      by.open(text, other);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each<[string, () => unknown]>([
    ['another sort', () => refused(cursors.seal(plan, { key: 'a', seq: 1 }), { ...plan, sort: undefined })],
    ['another filter', () => refused(cursors.seal(plan, { key: 'a', seq: 1 }), { ...plan, filters: [] })],
    ['another class', () => refused(cursors.seal(plan, { key: 'a', seq: 1 }), { ...plan, className: 'x' })],
    [
      'another related anchor',
      () =>
        refused(cursors.seal(plan, { key: 'a', seq: 1 }), {
          ...plan,
          related: { anchorId: 'a1', relation: { key: 'crm.person#employer', direction: 'inverse' } },
        }),
    ],
    [
      'another tenant',
      () =>
        refused(
          cursors.seal(plan, { key: 'a', seq: 1 }),
          plan,
          new ListCursors('the secret key', 'tenant-b'),
        ),
    ],
    [
      'another secret key',
      () => refused(new ListCursors('another key', 'tenant-a').seal(plan, { key: 'a', seq: 1 })),
    ],
    ['an altered cursor', () => refused(`${cursors.seal(plan, { key: 'a', seq: 1 })}x`)],
    ['text that is no cursor', () => refused('not-a-cursor')],
    ['an empty value', () => refused('')],
    [
      'a search cursor sealed with another purpose',
      () => refused(seal({ q: 'x', k: 'a', s: 1 }, 'the secret key')),
    ],
  ])('refuses a cursor of %s with a 400 naming after', (_name, attempt) => {
    const error = attempt();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual([
      { field: 'after', message: 'not a cursor of this query' },
    ]);
  });
});
