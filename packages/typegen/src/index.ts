export { tenantTypes } from './declarations.js';
export type { TypesTarget } from './declarations.js';
