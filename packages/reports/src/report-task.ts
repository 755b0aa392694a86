/**
 * The isolated task of a report rendering (see isolated.ts): a report job and the longest HTML it
 * may render in, its document out, in a process of its own.
 */
import { serveIsolatedTask } from '@odp/core';
import { renderReportJob } from './render.js';
import type { ReportJob } from './render.js';

/** The input of the report task. */
export interface ReportTaskInput {
  readonly job: ReportJob;
  readonly maxHtmlChars: number;
}

serveIsolatedTask((input: ReportTaskInput) => renderReportJob(input.job, input.maxHtmlChars));
