export { FileService, RangeNotSatisfiableError, parseRange } from './file-service.js';
export type { FileServiceOptions, OpenedFile, UploadDescriptor } from './file-service.js';
export { contentDisposition, detectContentType, sanitizeFileName, servedInline } from './content-type.js';
export { FileTokens, TOKEN_TTL_MS } from './tokens.js';
