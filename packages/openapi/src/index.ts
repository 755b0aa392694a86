export { tenantOpenApi } from './document.js';
export type { OpenApiDocument, OpenApiTarget } from './document.js';
