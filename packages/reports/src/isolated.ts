/**
 * Report rendering off the api's event loop: the Handlebars compile, the rendering and the PDF
 * layout of one report run in a process of its own with a heap and a time limit (`runIsolated`), so a
 * large object or a costly template can neither stall the api for other tenants nor exhaust the
 * memory of the process that serves them. A rendering over a limit is ended and its caller gets a
 * {@link ReportFailedError} (422) saying which limit; the process goes on.
 */
import { IsolatedTaskError, ReportFailedError, runIsolated, taskModule } from '@odp/core';
import type { IsolationLimits } from '@odp/core';
import { REPORT_TOO_LARGE } from './render.js';
import type { ReportDocument, ReportJob } from './render.js';
import type { ReportTaskInput } from './report-task.js';

const REPORT_TASK = taskModule(import.meta.url, 'report-task');

/** The platform error for a rendering that did not complete. */
function reportFailure(error: IsolatedTaskError, limits: IsolationLimits): ReportFailedError {
  switch (error.failure) {
    case 'memory':
      return new ReportFailedError(
        'memory',
        `The report needed more than the ${limits.memoryMb} MiB a report may use; it was not rendered.`,
      );
    case 'time':
      return new ReportFailedError(
        'time',
        `The report took longer than the ${limits.timeoutMs / 1000} s a report may take; it was not rendered.`,
      );
    case 'error':
      if (error.taskErrorName === REPORT_TOO_LARGE) {
        return new ReportFailedError(
          'memory',
          `${error.message} (within the ${limits.memoryMb} MiB a report may use)`,
        );
      }
      return new ReportFailedError('template', `The report template failed on this object: ${error.message}`);
  }
}

/**
 * The longest rendered HTML of a report within `memoryMb` of heap: a quarter of it in characters,
 * so the document, its copy as bytes and its layout fit.
 */
function maxHtmlChars(memoryMb: number): number {
  return Math.floor((memoryMb * 1024 * 1024) / 4);
}

/**
 * Renders `job` in a process of its own within `limits`; rejects with a {@link ReportFailedError} when
 * the rendering meets a limit or its template fails.
 */
export async function renderIsolated(job: ReportJob, limits: IsolationLimits): Promise<ReportDocument> {
  try {
    const input: ReportTaskInput = { job, maxHtmlChars: maxHtmlChars(limits.memoryMb) };
    return await runIsolated<ReportDocument>(REPORT_TASK, input, limits);
  } catch (error) {
    if (error instanceof IsolatedTaskError) throw reportFailure(error, limits);
    throw error;
  }
}
