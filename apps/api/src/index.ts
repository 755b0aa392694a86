export * from './app.js';
export * from './context.js';
export * from './log.js';
export * from './problem.js';
export * from './tenant-runtime.js';
