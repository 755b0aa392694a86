export * from './platform-migrations.js';
export * from './platform-store.js';
