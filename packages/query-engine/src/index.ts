export { parseOperand, ORDERABLE_TYPES, PREFIX_TYPES } from './operand.js';
export { parseFilters, classOf, indexedField, relationRef, isUuid, LIST_RESERVED } from './selection.js';
export {
  parseListQuery,
  parseSelection,
  parseDistinctQuery,
  parseAggregateQuery,
  pageSizeOf,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_PAGE,
} from './plans.js';
export type { RelatedScope } from './plans.js';
export { pageLinks, cursorLinks } from './links.js';
export { ListCursors } from './cursor.js';
export type { Href, PageLinks, PageLinkInput, CursorLinkInput } from './links.js';
