/** One `{href}` member of a page's `_links`. */
export interface Href {
  readonly href: string;
}

export interface PageLinks {
  readonly self: Href;
  readonly first?: Href;
  readonly prev?: Href;
  readonly next?: Href;
  readonly excel?: Href;
}

export interface PageLinkInput {
  /** Path of the list without query, e.g. `/data/<tenant>/companies` or a related-list path. */
  readonly path: string;
  /** Path of the Excel export with the same shape, or undefined for system classes. */
  readonly excelPath?: string;
  /** The request's query parameters, as received. */
  readonly params: URLSearchParams;
  /** Effective (clamped) page and size of the plan. */
  readonly page: number;
  readonly size: number;
  /** Whether the store returned `size + 1` rows. */
  readonly hasNext: boolean;
}

/**
 * The `_links` of a DataObjectPage: every link keeps the request's filters and sort and carries the
 * effective `size`; `first`/`prev` appear only past page 0, `next` only when a further row exists,
 * `excel` (filters and sort, no paging) only when an export path is given.
 */
export function pageLinks(input: PageLinkInput): PageLinks {
  const kept = new URLSearchParams(input.params);
  kept.delete('page');
  kept.delete('size');
  const at = (page: number): Href => {
    const query = new URLSearchParams(kept);
    query.set('page', String(page));
    query.set('size', String(input.size));
    return { href: `${input.path}?${query.toString()}` };
  };
  const excelQuery = kept.toString();
  return {
    self: at(input.page),
    ...(input.page > 0 ? { first: at(0), prev: at(input.page - 1) } : {}),
    ...(input.hasNext ? { next: at(input.page + 1) } : {}),
    ...(input.excelPath
      ? { excel: { href: excelQuery ? `${input.excelPath}?${excelQuery}` : input.excelPath } }
      : {}),
  };
}

export interface CursorLinkInput {
  readonly path: string;
  readonly excelPath?: string;
  readonly params: URLSearchParams;
  readonly size: number;
  /** The cursor of the following page, or null on the last page. */
  readonly next: string | null;
}

/**
 * The `_links` of a page served from the search index (a list with `q`): cursor-style, so only
 * `self`, `next` (carrying `cursor`) and `excel`; parameters kept as for {@link pageLinks}.
 */
export function cursorLinks(input: CursorLinkInput): PageLinks {
  const kept = new URLSearchParams(input.params);
  kept.delete('page');
  kept.delete('size');
  const at = (cursor: string | null): Href => {
    const query = new URLSearchParams(kept);
    query.delete('cursor');
    if (cursor !== null) query.set('cursor', cursor);
    query.set('size', String(input.size));
    return { href: `${input.path}?${query.toString()}` };
  };
  kept.delete('cursor');
  const excelQuery = kept.toString();
  return {
    self: at(input.params.get('cursor')),
    ...(input.next !== null ? { next: at(input.next) } : {}),
    ...(input.excelPath
      ? { excel: { href: excelQuery ? `${input.excelPath}?${excelQuery}` : input.excelPath } }
      : {}),
  };
}
