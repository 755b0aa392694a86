/**
 * The declarations of the example model (examples/models/crm) compile with @odp/client, and a
 * program that names a field the model does not have, a list key it does not list or a class it
 * does not have fails `tsc`: the real compiler, run on small programs in a temporary directory.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TenantModel } from '@odp/model-loader';
import { tenantTypes } from './declarations.js';

const REPO = path.resolve(__dirname, '../../..');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

const GOOD = `
import { createClient, versionOf } from '@odp/client';
import type { Schema } from './odp-types.js';

const odp = createClient<Schema>({ baseUrl: 'http://127.0.0.1:1', tenant: 't', apiKey: 'k' });
export async function run(): Promise<number> {
  const paid = await odp.list('invoices', { status: 'paid', amount_from: 100, 'client.name': 'Acme' }, { sort: 'amount,desc' });
  const first = paid.items[0];
  const status: 'draft' | 'sent' | 'paid' | 'cancelled' | undefined = first?.status.current;
  const created = await odp.create('invoices', { invoiceNumber: 'A-1', amount: 10, client: 'x', status: 'sent' });
  await odp.patch('invoices', created.id, { dueDate: null, contact: '' });
  for await (const line of odp.related('invoices', created.id, 'lines').all({ amount_from: 1 })) void line.amount;
  await odp.related('companies', 'id', 'invoices').create({ invoiceNumber: 'A-2', amount: 1 });
  await odp.batch((ops) => [
    ops.create('companies', { legalName: 'B' }),
    ops.createRelated('companies', 'id', 'invoices', { invoiceNumber: 'A-3', amount: 2 }),
    ops.patch('invoices', created.id, { status: 'paid' }, { ifMatch: versionOf(created.object!) }),
    ops.delete('invoices', created.id),
  ]);
  const company = await odp.refresh('companies', await odp.get('companies', 'id'));
  void status;
  return (created.object?.amount ?? 0) + (company._links.invoices?.values?.length ?? 0);
}
`;

const WRONG: Record<string, string> = {
  'a misspelt filter field': `odp.list('invoices', { stauts: 'paid' });`,
  'a key the list does not have': `odp.list('invoices', { status: 'payed' });`,
  'a misspelt create field': `odp.create('invoices', { invoiceNumbr: 'A-1', amount: 1, client: 'x' });`,
  'a create without a required field': `odp.create('invoices', { invoiceNumber: 'A-1', client: 'x' });`,
  'a computed field in a patch': `odp.patch('invoices', 'id', { total: 3 });`,
  'an unsortable sort key': `odp.list('invoices', {}, { sort: 'internalNote' });`,
  'a class the model does not have': `odp.list('invoice', {});`,
  'a misspelt field of a create related': `odp.related('companies', 'id', 'invoices').create({ invoiceNumbr: 'A', amount: 1 });`,
  'a relation the class does not have': `odp.related('companies', 'id', 'lines');`,
  'a misspelt field in a batch': `odp.batch((ops) => [ops.patch('invoices', 'id', { stauts: 'paid' })]);`,
  'a misspelt field read': `odp.get('invoices', 'id').then((invoice) => invoice.amuont);`,
};

/** The example application's declarations, as generated from the example model (tenant `demo`). */
const EXAMPLE_TYPES = path.join(REPO, 'examples/client-app/src/odp-types.d.ts');

let dir: string;
let generated: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'odp-typegen-'));
  const model = (await TenantModel.open(path.join(REPO, 'examples/models/crm'))).requireModel();
  generated = tenantTypes(model, { tenantId: 'demo' });
  writeFileSync(path.join(dir, 'odp-types.d.ts'), generated);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles `program` beside the declarations; resolves tsc's exit code and output. */
async function compile(name: string, program: string): Promise<{ code: number; output: string }> {
  writeFileSync(path.join(dir, `${name}.ts`), program);
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      lib: ['ES2023', 'DOM'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      skipLibCheck: true,
      types: [],
      paths: { '@odp/client': [path.join(REPO, 'packages/client/src/index.ts')] },
      allowImportingTsExtensions: true,
    },
    files: [`${name}.ts`],
  };
  writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify(config));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [
      TSC,
      '-p',
      path.join(dir, `tsconfig.${name}.json`),
    ]);
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('generated declarations with @odp/client', () => {
  it('the example application holds the current declarations of the example model', () => {
    // When this fails, the model or the generator changed: regenerate the file with this text.
    expect(readFileSync(EXAMPLE_TYPES, 'utf8')).toBe(generated);
  });

  it('a program using every kind of call compiles', async () => {
    const { code, output } = await compile('good', GOOD);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  it('each wrong statement fails tsc on its own line, and nothing else does', async () => {
    const first = GOOD.split('\n').length + 2;
    const statements = Object.values(WRONG);
    const program = `${GOOD}\nexport function wrong(): void {\n${statements.map((line) => `  ${line}`).join('\n')}\n}\n`;
    const { code, output } = await compile('wrong', program);
    expect(code).not.toBe(0);
    const failedLines = new Set([...output.matchAll(/wrong\.ts\((\d+),/g)].map((match) => Number(match[1])));
    const failed = Object.keys(WRONG).filter((_label, index) => failedLines.has(first + index));
    expect(failed).toEqual(Object.keys(WRONG));
    expect([...failedLines].every((line) => line >= first && line < first + statements.length)).toBe(true);
  }, 60_000);
});
