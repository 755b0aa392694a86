export * from './app.js';
export * from './context.js';
export * from './problem.js';
export { listen, shutdownOnSignal } from './server.js';
