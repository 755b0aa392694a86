import path from 'node:path';
import type { Model } from '@odp/core';
import {
  classCombination,
  describeDataObject,
  describeForm,
  describeRelatedDataObject,
  loadModelRepository,
} from './index.js';

const EXAMPLE = path.resolve(__dirname, '../../../examples/models/crm');
let model: Model;
beforeAll(async () => {
  const loaded = await loadModelRepository(EXAMPLE);
  if (!loaded.model) throw new Error('example refused');
  model = loaded.model;
});

describe('classCombination', () => {
  it.each<[string, unknown, string]>([
    ['missing', undefined, 'The query parameter classes is required.'],
    ['empty', ' , ', 'The query parameter classes is required.'],
    ['unknown', 'companies,robots', "Unknown class 'robots'."],
    ['a system class', 'secretValues', "Unknown class 'secretValues'."],
  ])('refuses %s', (_name, value, message) => {
    expect(() => classCombination(model, value)).toThrow(message);
  });

  it('resolves plurals in order, once each', () => {
    expect(classCombination(model, 'persons, shareholders,persons').map((c) => c.name)).toEqual([
      'crm.person',
      'crm.shareholder',
    ]);
  });
});

describe('metadata descriptions', () => {
  it('dataObject: fields with flags, relations of both directions', () => {
    const body = describeDataObject(model, classCombination(model, 'invoices'));
    expect(body.classes).toEqual(['invoices']);
    expect(body.nameFormula).toBe('invoiceNumber');
    const byName = new Map(body.fields.map((f) => [f.name, f]));
    expect(byName.get('total')).toMatchObject({
      type: 'CURRENCY',
      readOnly: true,
      formula: 'round(amount * (1 + vatRate / 100), 2)',
    });
    expect(byName.get('status')).toMatchObject({
      type: 'LIST',
      required: true,
      history: true,
      readOnly: false,
      default: { value: 'draft' },
      list: { name: 'crm.invoiceStatus', values: expect.arrayContaining([{ key: 'paid', label: 'Paid' }]) },
    });
    expect(byName.get('internalNote')).toMatchObject({ hidden: true, writeOnly: true });
    expect(byName.get('invoiceDate')?.default).toEqual({ formula: 'today()' });
    expect(body.relations).toEqual([
      {
        name: 'client',
        direction: 'forward',
        target: 'companies',
        multiple: false,
        required: true,
        readOnly: false,
        cascadeDelete: false,
        linkableClasses: ['companies'],
      },
      {
        name: 'contact',
        direction: 'forward',
        target: 'persons',
        multiple: false,
        required: false,
        readOnly: false,
        cascadeDelete: false,
        linkableClasses: ['persons'],
      },
      {
        name: 'documents',
        direction: 'inverse',
        target: 'documents',
        multiple: true,
        required: false,
        readOnly: true,
        cascadeDelete: false,
        linkableClasses: ['documents'],
      },
      {
        name: 'lines',
        direction: 'inverse',
        target: 'invoiceLines',
        multiple: true,
        required: false,
        readOnly: true,
        cascadeDelete: true,
        linkableClasses: ['invoiceLines'],
      },
    ]);
    expect(body.reports).toEqual([
      { name: 'invoice', format: 'html', languages: ['en', 'nl'] },
      { name: 'invoicePdf', format: 'pdf', languages: ['en', 'nl'] },
    ]);
    expect(describeDataObject(model, classCombination(model, 'companies')).reports).toEqual([]);
  });

  it('dataObject of a combination: the union of both classes', () => {
    const body = describeDataObject(model, classCombination(model, 'persons,shareholders'));
    expect(body.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['firstName', 'sharePercentage']));
    expect(body.relations.map((r) => r.name)).toEqual([
      'employers',
      'contactForInvoices',
      'notes',
      'shareholdings',
    ]);
    expect(body.fields.find((f) => f.name === 'sharePercentage')?.declaredOn).toBe('shareholders');
  });

  it('form: writable, visible fields and settable relations only', () => {
    const body = describeForm(model, classCombination(model, 'companies'));
    const names = body.fields.map((f) => f.name);
    expect(names).toContain('legalName');
    expect(names).toContain('apiToken');
    expect(names).not.toContain('displayName');
    expect(body.relations.map((r) => r.name)).toEqual(['employees', 'shareholders']);
    expect(body.relations[1]?.linkableClasses).toEqual(['persons', 'companies']);
  });

  it('relatedDataObject: related lists with the visible columns of the other class', () => {
    const body = describeRelatedDataObject(model, classCombination(model, 'companies'));
    const invoices = body.relatedLists.find((l) => l.name === 'invoices');
    expect(invoices).toMatchObject({ direction: 'inverse', target: 'invoices', readOnly: true });
    const columns = invoices?.columns.map((c) => c.name) ?? [];
    expect(columns).toContain('invoiceNumber');
    expect(columns).not.toContain('internalNote');
  });
});
