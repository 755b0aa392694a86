export * from './app.js';
export * from './context.js';
export * from './log.js';
export * from './problem.js';
export * from './tenant-runtime.js';
export * from './platform.js';
export { DOCUMENTS_FILE } from './document-stores.js';
export { startWorker } from './worker.js';
export type { WorkerOptions } from './worker.js';
