/**
 * Full-text reads of the object service, served from the tenant's SearchIndex: the page of a list
 * with `q` (interface spec, List rule 3) and global search (`GET /data/{tenant}/search`, see
 * docs/search.md). The index answers ids under the caller's access filter; the objects are then read
 * through the same filter and rendered in the index's order, each with its own `_class`/`_classes`.
 */
import { UnavailableError, ValidationError } from '@odp/core';
import type { Account, ClassDef, SearchIndex, StoredObject } from '@odp/core';
import { cursorLinks, pageSizeOf } from '@odp/query-engine';
import type { PageLinks } from '@odp/query-engine';
import { inReach } from './classes.js';
import type { DataServiceDeps } from './deps.js';
import type { DataObject } from './render.js';
import type { Renderer } from './render.js';

/** One page of rendered search hits and the cursor of the following page (null on the last). */
export interface SearchHits {
  readonly objects: DataObject[];
  readonly next: string | null;
}

export interface GlobalSearchPage {
  readonly _embedded: Record<string, DataObject[]>;
  readonly _links: PageLinks;
}

export class ObjectSearch {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly renderer: Renderer,
  ) {}

  /**
   * One page of the objects of `classes` (qualified names; an object matches when it has one of
   * them, so subclasses and gained classes are included) matching `text`, best first, as the
   * account may read them. Throws ValidationError for a forged or foreign cursor.
   */
  async hits(
    account: Account,
    index: SearchIndex,
    query: { text: string; classes: readonly string[]; size: number; cursor: string | null },
  ): Promise<SearchHits> {
    const filter = await this.deps.access.accessFilter(account);
    const page = await index.search(
      {
        text: query.text,
        classes: query.classes,
        size: query.size,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      filter,
    );
    const found = new Map(
      (await this.deps.store.getMany(page.ids, filter)).map((object) => [object.id, object]),
    );
    const rows = page.ids
      .map((id) => found.get(id))
      .filter((object): object is StoredObject => object !== undefined);
    return { objects: await this.renderer.render(rows, this.deps.store, filter), next: page.next };
  }

  /**
   * Global search: `q` (required) in the classes named by `classes` (plural names), else in
   * `defaultScope` (the tenant's generalSearchClasses). 400 when `q` is missing, when neither scope
   * exists, or naming every unknown class of `classes`. Rows sit under the first class of the scope.
   */
  async global(
    account: Account,
    params: URLSearchParams,
    defaultScope: readonly string[],
  ): Promise<GlobalSearchPage> {
    const index = this.deps.search;
    if (!index) throw new UnavailableError('Full-text search is not available for this tenant.');
    const text = params.get('q');
    if (text === null) {
      throw new ValidationError('q is required.', [{ field: 'q', message: 'is required' }]);
    }
    const scope = this.scope(params.get('classes'), defaultScope);
    const size = pageSizeOf(params);
    const hits = await this.hits(account, index, {
      text,
      classes: scope.map((cls) => cls.name),
      size,
      cursor: params.get('cursor'),
    });
    return {
      _embedded: { [scope[0]?.plural ?? '']: hits.objects },
      _links: cursorLinks({
        path: `/data/${this.deps.tenantId}/search`,
        params,
        size,
        next: hits.next,
      }),
    };
  }

  /**
   * The classes searched: those named in `classes` (comma-separated, blanks ignored; 400 naming the
   * unknown ones; classes outside the service's reach, such as system classes, count as unknown for
   * every account), else the default
   * scope; 400 when that is empty too.
   */
  private scope(classes: string | null, defaultScope: readonly string[]): ClassDef[] {
    const named = (classes ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const usable = (plural: string): ClassDef | undefined => {
      const cls = this.deps.model.byPlural.get(plural);
      return inReach(cls, this.deps.reach ?? 'data') ? cls : undefined;
    };
    if (named.length > 0) {
      const unknown = named.filter((name) => usable(name) === undefined);
      if (unknown.length > 0) {
        throw new ValidationError(`Unknown classes in classes: ${unknown.join(', ')}.`, [
          ...unknown.map((name) => ({ field: 'classes', message: `unknown class ${name}` })),
        ]);
      }
      return [...new Set(named)].map((name) => usable(name)).filter((cls) => cls !== undefined);
    }
    const fallback = defaultScope.map(usable).filter((cls) => cls !== undefined);
    if (fallback.length === 0) {
      throw new ValidationError(
        'Global search needs classes: name them in classes, or configure generalSearchClasses for the tenant.',
        [{ field: 'classes', message: 'is required when the tenant has no generalSearchClasses' }],
      );
    }
    return fallback;
  }
}
