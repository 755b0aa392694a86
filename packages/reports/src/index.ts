export { renderReportJob, reportJob, reportLanguage, reportTemplatePath } from './render.js';
export type { ReportDocument, ReportJob } from './render.js';
export { renderIsolated } from './isolated.js';
export { htmlBlocks, htmlToPdf } from './pdf.js';
