export { FileService, RangeNotSatisfiableError } from './file-service.js';
export { parseRange } from './byte-range.js';
export type { FileServiceOptions, OpenedFile, UploadDescriptor } from './file-service.js';
export { contentDisposition, detectContentType, sanitizeFileName, servedInline } from './content-type.js';
export { FileTokens, TOKEN_TTL_MS } from './tokens.js';
