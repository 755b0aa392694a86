/**
 * Report documents (model format section 8; docs/reports.md): a class's report template, a
 * Handlebars file of the model repository, rendered with one object as context, to HTML or to PDF.
 *
 * - Language: the requested language when the report lists it, else its primary subtag (`nl` for
 *   `nl-BE`) when listed, else the report's first language.
 * - Template: `templates/<language>/<file>` when the repository has it, else the report's template.
 * - HTML: values are HTML-escaped (a value can never add markup to the document).
 * - PDF: the same HTML, laid out as text (see pdf.ts).
 */
import Handlebars from 'handlebars';
import type { Model, ReportDef } from '@odp/core';
import { htmlToPdf } from './pdf.js';

/** A generated report file. */
export interface ReportDocument {
  readonly fileName: string;
  readonly contentType: 'text/html' | 'application/pdf';
  readonly bytes: Buffer;
  /** The language the report was rendered in (after fallback). */
  readonly language: string;
}

/** The language a report is rendered in for the requested one (see the module comment). */
export function reportLanguage(report: ReportDef, requested: string | undefined): string {
  const first = report.languages[0] ?? 'en';
  if (requested === undefined || requested === '') return first;
  const wanted = requested.toLowerCase();
  const listed = report.languages.find((language) => language.toLowerCase() === wanted);
  if (listed !== undefined) return listed;
  const primary = wanted.split('-')[0];
  return report.languages.find((language) => language.toLowerCase() === primary) ?? first;
}

/** The repository path of the report's template in `language`: the language's own file when present. */
export function reportTemplatePath(model: Model, report: ReportDef, language: string): string {
  const inTemplates = report.template.startsWith('templates/')
    ? report.template.slice('templates/'.length)
    : null;
  const localised = inTemplates === null ? null : `templates/${language}/${inTemplates}`;
  return localised !== null && model.templates.has(localised) ? localised : report.template;
}

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** The template compiled once per source; values are HTML-escaped. */
function compile(source: string): HandlebarsTemplateDelegate {
  let template = compiled.get(source);
  if (template === undefined) {
    template = Handlebars.create().compile(source, { strict: false });
    compiled.set(source, template);
  }
  return template;
}

/**
 * Renders `report` of `model` with `context` in the language chosen for `requested`. `baseName`
 * names the file (`<baseName>.<html|pdf>`). The template exists: the model loader refuses a
 * report whose template is missing.
 */
export async function renderReport(
  model: Model,
  report: ReportDef,
  context: Readonly<Record<string, unknown>>,
  requested: string | undefined,
  baseName: string,
): Promise<ReportDocument> {
  const language = reportLanguage(report, requested);
  const source = model.templates.get(reportTemplatePath(model, report, language)) ?? '';
  const html = compile(source)({ ...context, _language: language });
  if (report.format === 'html') {
    return {
      fileName: `${baseName}.html`,
      contentType: 'text/html',
      bytes: Buffer.from(html, 'utf8'),
      language,
    };
  }
  return {
    fileName: `${baseName}.pdf`,
    contentType: 'application/pdf',
    bytes: Buffer.from(await htmlToPdf(html, { language })),
    language,
  };
}
