import { SYSTEM, TENANT, crmFixture } from './crm.fixture.js';
import type { CrmFixture } from './crm.fixture.js';

let crm: CrmFixture;
beforeEach(async () => {
  crm = await crmFixture();
});
afterEach(async () => {
  await crm.close();
});

const idOf = (href: string) => href.slice(-36);
const href = (plural: string, id: string) => `/data/${TENANT}/${plural}/${id}`;

it('recalculates an invoice when a line is created', async () => {
  const company = idOf(await crm.data.create(SYSTEM, 'companies', { legalName: 'Acme' }));
  const invoice = idOf(
    await crm.data.create(SYSTEM, 'invoices', {
      invoiceNumber: '1',
      amount: 5,
      client: href('companies', company),
    }),
  );
  await crm.data.create(SYSTEM, 'invoiceLines', {
    description: 'd',
    unitPrice: 7,
    invoice: href('invoices', invoice),
  });
  const result = await crm.data.getOne(SYSTEM, 'invoices', invoice);
  expect('object' in result && result.object['linesTotal']).toBe(7);
});
