export { AgendaJobQueue, openAgendaJobQueue } from './agenda-job-queue.js';
export type { AgendaJobQueueOptions } from './agenda-job-queue.js';
