export { renderReport, reportLanguage, reportTemplatePath } from './render.js';
export type { ReportDocument } from './render.js';
export { htmlBlocks, htmlToPdf } from './pdf.js';
