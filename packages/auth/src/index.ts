export * from './api-keys.js';
export * from './tokens.js';
export * from './authenticate.js';
export * from './roles.js';
export * from './stream-tokens.js';
export * from './invitation-tokens.js';
