export * from './errors.js';
export * from './model.js';
export * from './account.js';
export * from './query.js';
export * from './store.js';
export * from './access.js';
export * from './platform.js';
export * from './search.js';
