export * from './cli.js';
export * from './commands.js';
