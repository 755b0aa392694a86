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
  /** Whether a row follows the page's last row. */
  readonly hasNext: boolean;
  /** The plan's `_offset`, when the page was requested by position instead of by number. */
  readonly offset?: number;
  /** Rows on the page, when a byte budget may have shortened it below `size`; `size` when absent. */
  readonly returned?: number;
  /** The request's `after` cursor, when the page was requested with one: `self` keeps it. */
  readonly after?: string;
  /**
   * The cursor of the page's last row: `next` carries it as `after` (keyset paging), beside the page
   * number or position it carries without one, which then only says where the page sits.
   */
  readonly nextAfter?: string;
}

/**
 * The `_links` of a DataObjectPage: every link keeps the request's filters and sort and carries the
 * effective `size`; `first`/`prev` appear only past page 0, `next` only when a further row exists,
 * `excel` (filters and sort, no paging) only when an export path is given. `next` carries the next
 * page number, or the position after the last row for a page requested by position or shortened by
 * its byte budget, and the keyset cursor when one is given (which the server then follows).
 */
export function pageLinks(input: PageLinkInput): PageLinks {
  const kept = new URLSearchParams(input.params);
  kept.delete('page');
  kept.delete('size');
  kept.delete('_offset');
  kept.delete('after');
  const link = (name: 'page' | '_offset', value: number, after?: string): Href => {
    const query = new URLSearchParams(kept);
    query.set(name, String(value));
    query.set('size', String(input.size));
    if (after !== undefined) query.set('after', after);
    return { href: `${input.path}?${query.toString()}` };
  };
  const at = (page: number): Href => link('page', page);
  const start = input.offset ?? input.page * input.size;
  const returned = input.returned ?? input.size;
  // A page requested by position, or shortened by its byte budget, is followed by position: the
  // next page starts right after the last row returned.
  const byPosition = input.offset !== undefined || returned < input.size;
  const excelQuery = kept.toString();
  return {
    self:
      input.offset === undefined
        ? link('page', input.page, input.after)
        : link('_offset', input.offset, input.after),
    ...(start > 0
      ? {
          first: at(0),
          prev:
            input.offset === undefined
              ? at(input.page - 1)
              : link('_offset', Math.max(0, start - input.size)),
        }
      : {}),
    ...(input.hasNext
      ? {
          next: byPosition
            ? link('_offset', start + returned, input.nextAfter)
            : link('page', input.page + 1, input.nextAfter),
        }
      : {}),
    ...(input.excelPath
      ? { excel: { href: excelQuery ? `${input.excelPath}?${excelQuery}` : input.excelPath } }
      : {}),
  };
}

export interface CursorLinkInput {
  readonly path: string;
  readonly params: URLSearchParams;
  readonly size: number;
  /** The cursor of the following page, or null on the last page. */
  readonly next: string | null;
}

/**
 * The `_links` of a page served from the search index (a list with `q`): cursor-style, so only
 * `self` and `next` (carrying `cursor`); parameters kept as for {@link pageLinks}. No `excel`: the
 * export refuses `q` (its cursor paging has no end to export to), so the link would lead nowhere.
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
  return {
    self: at(input.params.get('cursor')),
    ...(input.next !== null ? { next: at(input.next) } : {}),
  };
}
