export * from './config.js';
export * from './config-error.js';
export * from './config-types.js';
export * from './data-paths.js';
export { DEFAULT_TENANT_EVENT_STREAMS } from './limits-config.js';
export { SECRET_KEY_FILE } from './secret-key.js';
export { CONFIG_VARIABLES } from './variables.js';
export type { ConfigVariable } from './variables.js';
