import { buildModel } from '@odp/testkit';
import type { FormulaClasses, FormulaLink, FormulaRecord } from './index.js';
import { checkFormula, evaluate, FormulaSyntaxError, parseFormula } from './index.js';

describe('parseFormula', () => {
  it.each([
    [
      '1 + 2 * 3',
      {
        kind: 'binary',
        operator: '+',
        left: { kind: 'literal', value: 1 },
        right: {
          kind: 'binary',
          operator: '*',
          left: { kind: 'literal', value: 2 },
          right: { kind: 'literal', value: 3 },
        },
      },
    ],
    [
      '\'a\' ?? "b"',
      {
        kind: 'binary',
        operator: '??',
        left: { kind: 'literal', value: 'a' },
        right: { kind: 'literal', value: 'b' },
      },
    ],
    [
      'client.country.name',
      {
        kind: 'member',
        object: { kind: 'member', object: { kind: 'identifier', name: 'client' }, property: 'country' },
        property: 'name',
      },
    ],
    ['!done', { kind: 'unary', operator: '!', argument: { kind: 'identifier', name: 'done' } }],
    ['-x', { kind: 'unary', operator: '-', argument: { kind: 'identifier', name: 'x' } }],
    [
      'a ? b : c ? d : e',
      {
        kind: 'conditional',
        test: { kind: 'identifier', name: 'a' },
        consequent: { kind: 'identifier', name: 'b' },
        alternate: {
          kind: 'conditional',
          test: { kind: 'identifier', name: 'c' },
          consequent: { kind: 'identifier', name: 'd' },
          alternate: { kind: 'identifier', name: 'e' },
        },
      },
    ],
    [
      'round(amount, 2)',
      {
        kind: 'call',
        callee: 'round',
        args: [
          { kind: 'identifier', name: 'amount' },
          { kind: 'literal', value: 2 },
        ],
      },
    ],
    ['now()', { kind: 'call', callee: 'now', args: [] }],
    [
      'a - b - c',
      {
        kind: 'binary',
        operator: '-',
        left: {
          kind: 'binary',
          operator: '-',
          left: { kind: 'identifier', name: 'a' },
          right: { kind: 'identifier', name: 'b' },
        },
        right: { kind: 'identifier', name: 'c' },
      },
    ],
    [
      'a || b && c',
      {
        kind: 'binary',
        operator: '||',
        left: { kind: 'identifier', name: 'a' },
        right: {
          kind: 'binary',
          operator: '&&',
          left: { kind: 'identifier', name: 'b' },
          right: { kind: 'identifier', name: 'c' },
        },
      },
    ],
    [
      'true == null',
      {
        kind: 'binary',
        operator: '==',
        left: { kind: 'literal', value: true },
        right: { kind: 'literal', value: null },
      },
    ],
    ["'it\\'s'", { kind: 'literal', value: "it's" }],
    ['1.5e3', { kind: 'literal', value: 1500 }],
  ])('parses %s', (source, ast) => {
    expect(parseFormula(source).ast).toEqual(ast);
  });

  it.each([
    ['', 'Unexpected end of formula'],
    ['1 +', 'Unexpected end of formula'],
    ['(1', "Expected ')' but found end of formula"],
    ['a b', "Unexpected 'b'"],
    ["'open", 'Unterminated string literal'],
    ['a = 1', "Unexpected character '='"],
    ['a.b()', 'Only the built-in functions can be called'],
    ['a.(b)', 'Expected a field or relation name after "."'],
    ['f(1,)', "Unexpected ')'"],
    ['x; y', "Unexpected character ';'"],
    ['`t`', "Unexpected character '`'"],
    ['1e', 'Malformed number'],
    ['('.repeat(1000) + '1' + ')'.repeat(1000), 'Formula nests deeper than 64 levels'],
    ['!'.repeat(1000) + 'a', 'Formula nests deeper than 64 levels'],
    ['a' + '.b'.repeat(200), 'Formula nests deeper than 64 levels'],
    [Array.from({ length: 200 }, () => '1').join('+'), 'Formula nests deeper than 64 levels'],
    ['x'.repeat(100_000), 'Formula is longer than 10000 characters (100000)'],
  ])('refuses %j with a clear message', (source, message) => {
    let error: unknown;
    try {
      parseFormula(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormulaSyntaxError);
    expect((error as Error).message).toBe(message);
  });
});

const classes: FormulaClasses = buildModel([
  {
    name: 'crm.invoice',
    plural: 'invoices',
    fields: [
      ['amount', 'CURRENCY'],
      ['vatRate', 'PERCENTAGE'],
      ['status', 'LIST'],
      ['invoiceDate', 'DATE'],
    ],
    relations: [
      { name: 'client', target: 'crm.company', inverse: 'invoices' },
      { name: 'lines', target: 'crm.invoiceLine', multiple: true, inverse: 'invoice' },
    ],
  },
  {
    name: 'crm.company',
    plural: 'companies',
    fields: [
      ['legalName', 'TEXT'],
      ['tags', 'TEXT', { multiple: true }],
    ],
    relations: [{ name: 'country', target: 'crm.country', inverse: 'companies' }],
  },
  { name: 'crm.country', plural: 'countries', fields: [['name', 'TEXT']] },
  { name: 'crm.invoiceLine', plural: 'invoiceLines', fields: [['amount', 'CURRENCY']] },
]).classes;

describe('checkFormula', () => {
  it.each([
    ['amount * (1 + vatRate / 100)', [], 'number'],
    ['client.legalName', [], 'text'],
    ['client.country.name', [], 'text'],
    ['sum(lines.amount)', [], 'number'],
    ["concat(_id, ' ', _href)", [], 'text'],
    ["sysInfo('tenantId')", [], 'text'],
    ["dateDiff(invoiceDate, today(), 'days')", [], 'number'],
    ['addDays(invoiceDate, 30)', [], 'date'],
    ['amount > 100 && status == "sent"', [], 'boolean'],
    ['client', [], 'text'],
    ['unknownField', ["Unknown field or relation 'unknownField' on class crm.invoice"], 'any'],
    ['client.nope', ["Unknown field or relation 'nope' on class crm.company"], 'any'],
    ['client.country.population', ["Unknown field or relation 'population' on class crm.country"], 'any'],
    ['amount.value', ["Cannot read 'value': the expression before it is not a relation"], 'any'],
    ['explode(1)', ["Unknown function 'explode'"], 'any'],
    ['round()', ["Function 'round' takes 1 to 2 argument(s), got 0"], 'number'],
    ['today(1)', ["Function 'today' takes 0 argument(s), got 1"], 'date'],
    ['sum()', ["Function 'sum' takes at least 1 argument(s), got 0"], 'number'],
    [
      "sysInfo('password')",
      [
        "Function 'sysInfo' does not know 'password'; expected one of tenantId, baseUrl, now, today, accountEmail",
      ],
      'text',
    ],
    [
      "dateDiff(invoiceDate, today(), 'fortnights')",
      [
        "Function 'dateDiff' does not know 'fortnights'; expected one of days, weeks, months, years, hours, minutes, seconds",
      ],
      'number',
    ],
    [
      'a + b',
      [
        "Unknown field or relation 'a' on class crm.invoice",
        "Unknown field or relation 'b' on class crm.invoice",
      ],
      'any',
    ],
  ])('%s', (source, errors, type) => {
    const result = checkFormula(parseFormula(source), classes, 'crm.invoice');
    expect(result.errors).toEqual(errors);
    expect(result.type.base).toBe(type);
  });
});

/** In-memory objects for the evaluator; `loads` counts loader calls per relation step. */
class MemoryRecord implements FormulaRecord {
  constructor(
    private readonly values: Record<string, unknown>,
    private readonly links: Record<string, { multiple: boolean; records: MemoryRecord[] }> = {},
    private readonly loads: string[] = [],
  ) {}

  get(name: string): unknown {
    return this.values[name];
  }

  async follow(name: string): Promise<FormulaLink | undefined> {
    this.loads.push(name);
    return this.links[name];
  }
}

const country = new MemoryRecord({ name: 'Netherlands', _href: '/data/t/countries/c1' });
const company = new MemoryRecord(
  { legalName: 'Acme BV', tags: ['a', 'b'], _href: '/data/t/companies/1' },
  { country: { multiple: false, records: [country] } },
);
const lines = [new MemoryRecord({ amount: 10 }), new MemoryRecord({ amount: 32.5 }), new MemoryRecord({})];
const invoice = new MemoryRecord(
  {
    amount: 100,
    vatRate: 21,
    status: 'sent',
    invoiceDate: '2026-01-31',
    _id: 'i1',
    _href: '/data/t/invoices/i1',
    empty: null,
    name: '  Mixed Case  ',
  },
  {
    client: { multiple: false, records: [company] },
    lines: { multiple: true, records: lines },
    noClient: { multiple: false, records: [] },
  },
);
const fixedNow = new Date('2026-03-15T10:20:30Z');

describe('evaluate', () => {
  it.each<[string, unknown]>([
    ['amount * (1 + vatRate / 100)', 121],
    ['client.legalName', 'Acme BV'],
    ['client.country.name', 'Netherlands'],
    ['client', '/data/t/companies/1'],
    ['lines.amount', [10, 32.5, null]],
    ['sum(lines.amount)', 42.5],
    ['count(lines.amount)', 2],
    ['min(lines.amount)', 10],
    ['max(lines.amount, 99)', 99],
    ['client.tags', ['a', 'b']],
    ['noClient.legalName', null],
    ['missing', null],
    ['missing.deeper.still', null],
    ['amount.value', null],
    ['empty + 1', null],
    ['amount / 0', null],
    ['amount % 0', null],
    ["'x' * 2", null],
    ['-status', null],
    ["amount + ' EUR'", '100 EUR'],
    ['1 + 2 * 3 - 4 % 3', 6],
    ['amount > 50', true],
    ['amount <= 50', false],
    ["status == 'sent' && amount >= 100", true],
    ["status != 'sent' || 'fallback'", 'fallback'],
    ['empty ?? 7', 7],
    ['amount > empty', null],
    ['!empty', true],
    ["status == 'sent' ? 'yes' : 'no'", 'yes'],
    ["if(amount > 1000, 'big', 'small')", 'small'],
    ['if(false, missing.x)', null],
    ["concat('a', 1, empty, true)", 'a1true'],
    ['upper(client.legalName)', 'ACME BV'],
    ['lower(client.legalName)', 'acme bv'],
    ['trim(name)', 'Mixed Case'],
    ['upper(empty)', null],
    ['round(10 / 3, 2)', 3.33],
    ['round(2.5)', 3],
    ['round(1.005, 2)', 1.01],
    ['coalesce(empty, missing, 5)', 5],
    ["sysInfo('tenantId')", 'tenant-1'],
    ["sysInfo('baseUrl')", 'http://localhost:8080'],
    ["sysInfo('today')", '2026-03-15'],
    ["sysInfo('now')", '2026-03-15T10:20:30.000Z'],
    ["sysInfo('accountEmail')", 'ann@example.com'],
    ["systemSetting('vatNumber')", 'NL001'],
    ["systemSetting('unknown')", null],
    ['today()', '2026-03-15'],
    ['now()', '2026-03-15T10:20:30.000Z'],
    ['addDays(invoiceDate, 30)', '2026-03-02'],
    ["addDays('2026-01-01T12:00:00Z', -1)", '2025-12-31T12:00:00.000Z'],
    ['addDays(empty, 1)', null],
    ["dateDiff(invoiceDate, '2026-03-02', 'days')", 30],
    ["dateDiff('2026-03-02', invoiceDate)", -30],
    ["dateDiff('2025-01-31', '2026-03-15', 'months')", 13],
    ["dateDiff('2020-02-29', '2026-02-28', 'years')", 5],
    ["dateDiff('2026-03-15T00:00:00Z', now(), 'hours')", 10],
    ["dateDiff(invoiceDate, 'not a date', 'days')", null],
    ["dateDiff(invoiceDate, today(), 'fortnights')", null],
    ["formatDate(invoiceDate, 'dd-MM-yyyy')", '31-01-2026'],
    ["formatDate(now(), 'yyyy-MM-dd HH:mm:ss')", '2026-03-15 10:20:30'],
    ['formatDate(status)', null],
    ["_id + '/' + _href", 'i1//data/t/invoices/i1'],
    ['_modificationDate', null],
    // Values read at once before and after a step that waits (a relation, a system setting).
    [
      "concat(amount, client.legalName, vatRate, systemSetting('vatNumber'), status)",
      '100Acme BV21NL001sent',
    ],
    ['amount + sum(lines.amount) * 2', 185],
    ['-sum(lines.amount)', -42.5],
    ["client.legalName == 'Acme BV' ? amount : 0", 100],
    ['empty ?? client.country.name', 'Netherlands'],
    ["if(client, upper(client.legalName), 'none')", 'ACME BV'],
  ])('%s', async (source, expected) => {
    const result = await evaluate(parseFormula(source), {
      record: invoice,
      tenantId: 'tenant-1',
      baseUrl: 'http://localhost:8080',
      accountEmail: 'ann@example.com',
      now: () => fixedNow,
      systemSetting: async (name) => (name === 'vatNumber' ? 'NL001' : null),
    });
    expect(result).toEqual(expected);
  });

  it('loads one relation step for all reached objects at once', async () => {
    const loads: string[] = [];
    const leaf = (n: number) => new MemoryRecord({ amount: n }, {}, loads);
    const parent = new MemoryRecord(
      {},
      {
        children: {
          multiple: true,
          records: [1, 2, 3].map(
            (n) =>
              new MemoryRecord({}, { items: { multiple: true, records: [leaf(n), leaf(n * 10)] } }, loads),
          ),
        },
      },
      loads,
    );
    expect(await evaluate(parseFormula('sum(children.items.amount)'), { record: parent })).toBe(66);
    expect(loads).toEqual(['children', 'items', 'items', 'items']);
  });
});
