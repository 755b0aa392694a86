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

/**
 * Everything one rendering needs, as plain data (it crosses to the rendering's process by
 * structured clone): the template's source, the format, the chosen language, the file name and the
 * object's context.
 */
export interface ReportJob {
  readonly source: string;
  readonly format: 'html' | 'pdf';
  readonly language: string;
  readonly baseName: string;
  readonly context: Readonly<Record<string, unknown>>;
}

/** The name of the error of a rendered document over `maxHtmlChars`. */
export const REPORT_TOO_LARGE = 'ReportTooLargeError';

/** A generated report file. */
export interface ReportDocument {
  readonly fileName: string;
  readonly contentType: 'text/html' | 'application/pdf';
  readonly bytes: Uint8Array;
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

/**
 * The rendering of `report` of `model` with `context` in the language chosen for `requested`.
 * `baseName` names the file (`<baseName>.<html|pdf>`). The template exists: the model loader
 * refuses a report whose template is missing.
 */
export function reportJob(
  model: Model,
  report: ReportDef,
  context: Readonly<Record<string, unknown>>,
  requested: string | undefined,
  baseName: string,
): ReportJob {
  const language = reportLanguage(report, requested);
  const source = model.templates.get(reportTemplatePath(model, report, language)) ?? '';
  return { source, format: report.format, language, baseName, context };
}

/**
 * Renders a report: the template compiled (values HTML-escaped) and applied to the context, then
 * laid out as PDF for a `pdf` report. Nothing is cached: each rendering runs on a thread of its own.
 *
 * A rendered HTML longer than `maxHtmlChars` characters fails (error name {@link REPORT_TOO_LARGE})
 * before the document is read as one string: a template can repeat a value into a document far
 * larger than its parts, and reading that at once would be a single allocation too large for a
 * heap limit to stop gracefully.
 */
export async function renderReportJob(job: ReportJob, maxHtmlChars: number): Promise<ReportDocument> {
  const template = Handlebars.create().compile(job.source, { strict: false });
  const html = template({ ...job.context, _language: job.language });
  if (html.length > maxHtmlChars) {
    const error = new Error(
      `The rendered report would be ${html.length} characters long; a report may have ${maxHtmlChars}.`,
    );
    error.name = REPORT_TOO_LARGE;
    throw error;
  }
  if (job.format === 'html') {
    return {
      fileName: `${job.baseName}.html`,
      contentType: 'text/html',
      bytes: Buffer.from(html, 'utf8'),
      language: job.language,
    };
  }
  return {
    fileName: `${job.baseName}.pdf`,
    contentType: 'application/pdf',
    bytes: await htmlToPdf(html, { language: job.language }),
    language: job.language,
  };
}
