/**
 * An accounts-receivable summary of the example CRM tenant, on @odp/client with the declarations
 * `odp types` wrote (src/odp-types.d.ts): open invoices per client, a new invoice with its PDF
 * report, and the changes other people make, live, until Ctrl-C.
 *
 *   ODP_BASE_URL=http://localhost:3000 ODP_TENANT=<id> ODP_API_KEY=<key> pnpm start
 */
import { createClient, OdpProblem } from '@odp/client';
import type { Schema } from './odp-types.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Set ${name} (see README.md).`);
  return value;
}

const odp = createClient<Schema>({
  baseUrl: process.env['ODP_BASE_URL'] ?? 'http://localhost:3000',
  tenant: required('ODP_TENANT'),
  apiKey: required('ODP_API_KEY'),
});

/** Open invoices (sent, not yet paid) per client, with their total, largest first. */
async function openInvoices(): Promise<void> {
  const perClient = await odp.collection('invoices').distinct('client', { status: 'sent' }, 'count,desc');
  for (const bucket of perClient.values) {
    const client = bucket.value as { name: string; href: string } | null;
    if (client === null) continue;
    const { sum } = await odp
      .collection('invoices')
      .aggregations({ sum: ['total'] }, { status: 'sent', client_href: client.href });
    console.log(`${client.name}: ${bucket.count} open, ${sum?.['total'] ?? 0} to receive`);
  }
  for await (const invoice of odp.all(
    'invoices',
    { status: 'sent', dueDate_to: new Date().toISOString().slice(0, 10) },
    { sort: 'dueDate' },
  )) {
    console.log(
      `overdue: ${invoice.invoiceNumber} of ${invoice._links.client?.name ?? '?'}, due ${invoice.dueDate ?? '?'}`,
    );
  }
}

/** A new invoice for the first company, and the signed URL of its PDF. */
async function newInvoice(): Promise<void> {
  const [company] = (await odp.list('companies', { active: true }, { sort: 'legalName', size: 1 })).items;
  if (company === undefined) return;
  try {
    const { id, object } = await odp.create('invoices', {
      invoiceNumber: `APP-${Date.now()}`,
      amount: 125,
      client: company._links._self.href,
    });
    console.log(`created ${object?.invoiceNumber}, total ${object?.total}, due ${object?.dueDate}`);
    console.log(`PDF: ${await odp.report('invoices', id, 'invoicePdf', 'en')}`);
  } catch (error) {
    if (!(error instanceof OdpProblem)) throw error;
    console.log(
      `refused (${error.status}): ${error.errors.map((e) => `${e.field} ${e.message}`).join(', ') || error.message}`,
    );
  }
}

await openInvoices();
await newInvoice();
console.log('Following changes (Ctrl-C to stop)...');
for await (const event of odp.events({ values: true })) {
  console.log(`${event.type} ${event.href}${event.changed ? ` changed ${event.changed.join(', ')}` : ''}`);
}
