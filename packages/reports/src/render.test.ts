import path from 'node:path';
import type { Model, ReportDef } from '@odp/core';
import { TenantModel } from '@odp/model-loader';
import { htmlBlocks, renderReportJob, reportJob, reportLanguage, reportTemplatePath } from './index.js';
import { pdfText } from '../test/pdf-text.js';

const CRM = path.resolve(__dirname, '../../../examples/models/crm');

let model: Model;
let html: ReportDef;
let pdf: ReportDef;

beforeAll(async () => {
  const opened = await TenantModel.open(CRM);
  model = opened.requireModel();
  const reports = model.classes.get('crm.invoice')?.reports ?? [];
  html = reports.find((report) => report.name === 'invoice')!;
  pdf = reports.find((report) => report.name === 'invoicePdf')!;
});

const context = {
  invoiceNumber: 'INV-7',
  amount: 100,
  vatRate: 21,
  vatAmount: 21,
  total: 121,
  client: { legalName: 'Globex <b>& Co</b>' },
};

describe('report language', () => {
  it('takes the requested language when listed, its primary subtag next, else the first language', () => {
    expect(reportLanguage(html, 'nl')).toBe('nl');
    expect(reportLanguage(html, 'NL')).toBe('nl');
    expect(reportLanguage(html, 'nl-BE')).toBe('nl');
    expect(reportLanguage(html, 'fr')).toBe('en');
    expect(reportLanguage(html, undefined)).toBe('en');
  });

  it('uses templates/<language>/<file> when the repository has it, else the report template', () => {
    expect(reportTemplatePath(model, html, 'nl')).toBe('templates/nl/invoice.hbs');
    expect(reportTemplatePath(model, html, 'en')).toBe('templates/invoice.hbs');
  });
});

const renderReport = (
  from: Model,
  report: ReportDef,
  values: Record<string, unknown>,
  requested: string,
  baseName: string,
) => renderReportJob(reportJob(from, report, values, requested, baseName), 1_000_000);

describe('renderReportJob', () => {
  it('renders HTML with the values escaped', async () => {
    const document = await renderReport(model, html, context, 'nl', 'invoice');
    expect(document).toMatchObject({ fileName: 'invoice.html', contentType: 'text/html', language: 'nl' });
    const text = Buffer.from(document.bytes).toString('utf8');
    expect(text).toContain('Factuur INV-7');
    expect(text).toContain('Globex &lt;b&gt;&amp; Co&lt;/b&gt;');
    expect(text).not.toContain('<b>');
  });

  it('renders a PDF whose extracted text is the rendered document', async () => {
    const document = await renderReport(model, pdf, context, 'en', 'invoice');
    expect(document).toMatchObject({ fileName: 'invoice.pdf', contentType: 'application/pdf' });
    expect(Buffer.from(document.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const { pages, text } = await pdfText(document.bytes);
    expect(pages).toBe(1);
    expect(text).toContain('Invoice INV-7');
    expect(text).toContain('Client: Globex <b>& Co</b>');
    expect(text).toContain('121');
  });

  it('breaks a long document onto several pages and prints unencodable characters as ?', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `<p>Line ${i} 東</p>`).join('');
    const model2: Model = { ...model, templates: new Map([['templates/long.hbs', lines]]) };
    const report: ReportDef = {
      name: 'long',
      template: 'templates/long.hbs',
      format: 'pdf',
      languages: ['en'],
    };
    const { pages, text } = await pdfText((await renderReport(model2, report, {}, 'en', 'long')).bytes);
    expect(pages).toBeGreaterThan(1);
    expect(text).toContain('Line 119 ?');
  });
});

describe('htmlBlocks', () => {
  it('keeps the title, headings, rows and items, and drops head, style and script', () => {
    const { title, blocks } = htmlBlocks(
      '<html><head><title>T &amp; U</title><style>p{}</style></head><body><script>x()</script>' +
        '<h2>Head</h2><table><tr><th>A</th><td>1</td></tr></table><ul><li>one</li></ul>a<br>b</body></html>',
    );
    expect(title).toBe('T & U');
    expect(blocks).toEqual([
      { text: 'Head', heading: 2 },
      { text: 'A 1', heading: 0 },
      { text: '• one', heading: 0 },
      { text: 'a', heading: 0 },
      { text: 'b', heading: 0 },
    ]);
  });
});
