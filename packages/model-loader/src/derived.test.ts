/**
 * Which fields a loaded model derives from other objects (`derivedSources` of @odp/core), on a
 * small model with every way a value can read through a relation.
 */
import { derivedSources } from '@odp/core';
import type { Model } from '@odp/core';
import { buildModel } from './index.js';

const FILES: Record<string, unknown> = {
  'classes/a/company.json': {
    version: 2,
    kind: 'class',
    class: 'a.company',
    fields: [{ name: 'name', type: 'TEXT' }],
    relations: [{ name: 'parent', target: 'a.company', inverse: 'subsidiaries' }],
  },
  'classes/a/invoice.json': {
    version: 2,
    kind: 'class',
    class: 'a.invoice',
    fields: [
      { name: 'number', type: 'TEXT' },
      { name: 'amount', type: 'DECIMAL' },
      { name: 'doubled', type: 'DECIMAL', formula: 'amount * 2' },
      { name: 'clientName', type: 'TEXT', formula: 'client.name' },
      { name: 'groupName', type: 'TEXT', formula: 'client.parent.name' },
      { name: 'label', type: 'TEXT', formula: "concat(number, ' ', clientName)" },
      { name: 'lineCount', type: 'INTEGER', formula: 'count(lines)' },
      { name: 'copied', type: 'TEXT' },
    ],
    relations: [{ name: 'client', target: 'a.company', inverse: 'invoices' }],
    scripts: [{ name: 'copy', type: 'SET_VALUES', trigger: ['CREATE'], set: { copied: 'client.name' } }],
  },
  'classes/a/line.json': {
    version: 2,
    kind: 'class',
    class: 'a.line',
    fields: [{ name: 'amount', type: 'DECIMAL' }],
    relations: [{ name: 'invoice', target: 'a.invoice', inverse: 'lines' }],
  },
};

function model(): Model {
  const entries = Object.entries(FILES).map(([path, doc]) => ({ path, text: JSON.stringify(doc) }));
  const result = buildModel({ modelFiles: entries, dataFiles: [], templateFiles: [], truncated: false });
  if (!result.model) throw new Error(JSON.stringify(result.issues));
  return result.model;
}

/** The source paths of each derived field as relation names, e.g. `client.parent`. */
function paths(className: string): Record<string, string[]> {
  const derived = derivedSources(model(), className);
  return Object.fromEntries(
    [...derived].map(([field, list]) => [field, list.map((path) => path.map((end) => end.name).join('.'))]),
  );
}

describe('derivedSources', () => {
  it('names every field computed through a relation, with its paths; own-value formulas are not derived', () => {
    expect(paths('a.invoice')).toEqual({
      clientName: ['client'],
      groupName: ['client.parent'],
      label: ['client'],
      lineCount: ['lines'],
      copied: ['client'],
    });
  });

  it('a class without formulas over relations has no derived field', () => {
    expect(paths('a.company')).toEqual({});
    expect(paths('a.line')).toEqual({});
  });

  it('a name formula reading through a relation is loaded with a warning naming the path', () => {
    const files = {
      ...FILES,
      'classes/a/line.json': {
        ...(FILES['classes/a/line.json'] as object),
        nameFormula: 'invoice.clientName',
      },
    };
    const entries = Object.entries(files).map(([path, doc]) => ({ path, text: JSON.stringify(doc) }));
    const result = buildModel({ modelFiles: entries, dataFiles: [], templateFiles: [], truncated: false });
    expect(result.model).toBeDefined();
    const base = Object.entries(FILES).map(([path, doc]) => ({ path, text: JSON.stringify(doc) }));
    const plain = buildModel({ modelFiles: base, dataFiles: [], templateFiles: [], truncated: false });
    expect(plain.issues.filter((issue) => issue.severity === 'WARNING')).toEqual([]);
    const warnings = result.issues.filter((issue) => issue.severity === 'WARNING');
    expect(warnings).toEqual([
      expect.objectContaining({
        file: 'classes/a/line.json',
        path: '/nameFormula',
        message: expect.stringContaining('reads through relations (invoice)'),
      }),
    ]);
  });
});
