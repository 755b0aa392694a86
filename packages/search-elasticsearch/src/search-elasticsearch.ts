/**
 * The SearchIndex port on Elasticsearch 8: one index per tenant behind an alias, fed from outside
 * the store's transaction (by the {@link SearchIndexer}, through the store's change events), so a
 * search sees a write once the indexer has applied its event.
 *
 * Matching (the port's rule: each term a prefix, terms AND-combined, case- and accent-insensitive):
 * text and terms are folded here, before the engine sees them ({@link foldSearchText}): the node
 * has only the standard analyzer (analysis-common, with asciifolding and edge_ngram, is not
 * published for embedding), so folding in one place keeps indexing and querying consistent. Each
 * term is a `match_phrase_prefix` on the `text` field, whose `index_prefixes` subfield answers
 * prefixes of 1 to {@link PREFIX_MAX_CHARS} characters with one term lookup (a term the standard
 * tokenizer splits, such as a run of CJK ideographs, becomes a phrase of its tokens, the last a
 * prefix; a longer single word expands to at most {@link LONG_PREFIX_EXPANSIONS} completions).
 * No query syntax is ever parsed, so engine operators in the query are plain words.
 *
 * Ranking: BM25 of the prefix matches plus a bonus for whole-word matches, best first; ties by id.
 * Paging: the first page opens a point-in-time and later pages continue it with `search_after`,
 * so the pages of one query follow the first page's ranking whatever is written meanwhile (new
 * objects are not part of the paging); each later page is checked against the live index, so an
 * object deleted or hidden from the caller since the first page is left out. The point-in-time
 * lives `cursorKeepAlive` after each page; an expired cursor is a ValidationError. Cursors are
 * HMAC-signed and bound to their query: a forged, damaged or foreign one is a ValidationError.
 *
 * Rebuild: a new index is filled from the store, then the alias is swapped to it atomically and
 * the old index deleted; the indexer's position travels with the index (see {@link position}).
 */
import { createHash } from 'node:crypto';
import { errors } from '@elastic/elasticsearch';
import type { Client, estypes } from '@elastic/elasticsearch';
import { ValidationError, invalidSearchCursor, seal, unseal, searchTerms, searchTextOf } from '@odp/core';
import type {
  AccessFilter,
  EventCursor,
  Model,
  SearchDocument,
  SearchIndex,
  SearchPage,
  SearchQuery,
  TenantAccessRows,
  TenantDocuments,
} from '@odp/core';
import { accessClauses, foldSearchText } from './engine-query.js';
import { deleteTenantIndexes } from './tenant-indexes.js';

/** Prefixes up to this length are indexed (one term lookup); longer ones expand on the main field. */
export const PREFIX_MAX_CHARS = 12;
/** A prefix longer than {@link PREFIX_MAX_CHARS} matches at most this many distinct words. */
export const LONG_PREFIX_EXPANSIONS = 1000;
const MAX_PAGE_SIZE = 1000;
/** Id of the document holding the indexer's position inside each concrete index. */
const POSITION_ID = '~position';
const REBUILD_BATCH = 500;

/** The mapping of every tenant index: the port fixes the document (one combined text per object). */
const MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    id: { type: 'keyword' },
    classes: { type: 'keyword' },
    aclIds: { type: 'keyword' },
    text: { type: 'text', index_prefixes: { min_chars: 1, max_chars: PREFIX_MAX_CHARS } },
    position: { type: 'long', index: false },
    cursor: { type: 'keyword', index: false, doc_values: false },
  },
};

export interface ElasticsearchSearchIndexOptions {
  readonly client: Client;
  /**
   * The tenant's alias (lowercase letters, digits, `-`, `_`); concrete indexes are named after it
   * with a suffix. One alias per tenant: tenants never share an index.
   */
  readonly alias: string;
  /** The tenant's documents and their ACL rows, read by `rebuild`. */
  readonly store: Pick<TenantDocuments, 'scan'> & Pick<TenantAccessRows, 'aclRowsOf'>;
  /** Key of the cursor signatures. */
  readonly secret: Buffer;
  /**
   * When a write is visible to searches: `'wait_for'` (default) resolves `index`/`remove` once a
   * refresh has made it searchable; `true` forces a refresh (tests); `false` leaves it to the
   * index's refresh interval (about 1 s).
   */
  readonly refresh?: boolean | 'wait_for';
  /** How long a paging's point-in-time is kept after each page (an Elasticsearch time value). */
  readonly cursorKeepAlive?: string;
  readonly shards?: number;
  /** Replicas of each tenant index (default 1; 0 on a single test node). */
  readonly replicas?: number;
}

/**
 * Where an index stands in the store's event log: the cursor of the newest event applied (null:
 * none, read from the log's start) and that cursor's ordinal (`EventLog.ordinal`, 0 for none),
 * which orders positions and versions entries.
 */
export interface IndexPosition {
  readonly cursor: EventCursor | null;
  readonly ordinal: number;
}

/** An entry written by the indexer: `version` is the ordinal of the newest event it reflects. */
export interface VersionedChange {
  readonly document?: SearchDocument;
  readonly removeId?: string;
  readonly version: number;
}

interface Cursor {
  /** Query fingerprint: a cursor only continues the query it came from. */
  readonly q: string;
  /** The point-in-time of the paging. */
  readonly pit: string;
  /** Sort values of the last object returned. */
  readonly after: estypes.SortResults;
}

interface Hit {
  readonly id: string;
  readonly sort: estypes.SortResults;
}

export class ElasticsearchSearchIndex implements SearchIndex {
  readonly maintainedByStore = false;
  private readonly client: Client;
  private readonly refresh: boolean | 'wait_for';
  private readonly keepAlive: string;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: ElasticsearchSearchIndexOptions) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(options.alias)) {
      throw new Error(`Elasticsearch alias ${JSON.stringify(options.alias)} is not a valid index name`);
    }
    this.client = options.client;
    this.refresh = options.refresh ?? 'wait_for';
    this.keepAlive = options.cursorKeepAlive ?? '5m';
  }

  get alias(): string {
    return this.options.alias;
  }

  async index(documents: readonly SearchDocument[]): Promise<void> {
    await this.apply(
      await this.concreteIndex(),
      documents.map((document) => ({ document })),
    );
  }

  async remove(ids: readonly string[]): Promise<void> {
    await this.apply(
      await this.concreteIndex(),
      ids.map((removeId) => ({ removeId })),
    );
  }

  /**
   * Writes changes into one concrete index (the indexer passes the index it read its position
   * from, so a batch that races an alias swap lands in the index being discarded, never half in
   * each). A change with a version is applied only when no newer version of the entry is there
   * (external versioning), so two indexers, or an indexer and a rebuild, never put back an older
   * state; removing an absent entry is not an error.
   */
  async apply(
    index: string,
    changes: readonly (Omit<VersionedChange, 'version'> & { readonly version?: number })[],
    refresh: boolean | 'wait_for' = this.refresh,
  ): Promise<void> {
    if (changes.length === 0) return;
    const operations: (estypes.BulkOperationContainer | Record<string, unknown>)[] = [];
    for (const change of changes) {
      const versioning =
        change.version === undefined
          ? {}
          : { version: change.version, version_type: 'external_gte' as const };
      if (change.document !== undefined) {
        const { id, classes, aclIds, text } = change.document;
        operations.push({ index: { _index: index, _id: id, ...versioning } });
        operations.push({ id, classes, aclIds, text: foldSearchText(text) });
      } else if (change.removeId !== undefined) {
        operations.push({ delete: { _index: index, _id: change.removeId, ...versioning } });
      }
    }
    const response = await this.client.bulk({ operations, refresh });
    if (!response.errors) return;
    const failure = response.items
      .map((item) => Object.values(item)[0])
      // An older state than the one indexed: skipping it is the point of versioning. (Removing an
      // absent entry is no error at all: its result is `not_found`.)
      .find(
        (result) => result?.error !== undefined && result.error.type !== 'version_conflict_engine_exception',
      );
    if (failure !== undefined) {
      throw new Error(
        `Elasticsearch refused an index write: ${failure.error?.type}: ${failure.error?.reason}`,
      );
    }
  }

  /**
   * The position of `index` in the event log. It is kept inside the index it describes, so a
   * rebuilt index carries the position its contents were read at, and swapping the alias swaps
   * the position with it. An index without a saved cursor (none yet, or saved before positions
   * were cursors) starts from the log's start: applying events again is harmless.
   */
  async position(index: string): Promise<IndexPosition> {
    const response = await this.client.get<{ position?: number; cursor?: string }>(
      { index, id: POSITION_ID, _source_includes: ['position', 'cursor'] },
      { ignore: [404] },
    );
    const cursor = response.found ? response._source?.cursor : undefined;
    return cursor === undefined
      ? { cursor: null, ordinal: 0 }
      : { cursor, ordinal: response._source?.position ?? 0 };
  }

  /** Saves `position` into `index` unless a later one is saved there (the ordinal is its version). */
  async savePosition(index: string, position: IndexPosition): Promise<void> {
    await this.client
      .index({
        index,
        id: POSITION_ID,
        document: {
          position: position.ordinal,
          ...(position.cursor === null ? {} : { cursor: position.cursor }),
        },
        version: position.ordinal,
        version_type: 'external_gte',
      })
      .catch((error: unknown) => {
        // Another indexer has saved a later position: keep it.
        if (!(error instanceof errors.ResponseError && error.statusCode === 409)) throw error;
      });
  }

  /** The concrete index the alias points at, creating the tenant's first index when there is none. */
  async concreteIndex(): Promise<string> {
    await this.ensureIndex();
    const aliases = await this.client.indices.getAlias({ name: this.alias });
    const [index, ...others] = Object.keys(aliases);
    if (index === undefined || others.length > 0) {
      throw new Error(`Elasticsearch alias ${this.alias} must point at exactly one index`);
    }
    return index;
  }

  async search(query: SearchQuery, access: AccessFilter): Promise<SearchPage> {
    const terms = searchTerms(query.text)
      .map(foldSearchText)
      .filter((term) => term.length > 0);
    const classes = [...new Set(query.classes)].sort();
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([terms, classes]))
      .digest('base64url')
      .slice(0, 16);
    const cursor = query.cursor === undefined ? undefined : this.decodeCursor(query.cursor, fingerprint);
    if (terms.length === 0 || classes.length === 0) return { ids: [], next: null };
    const size = Math.max(1, Math.min(Math.trunc(query.size), MAX_PAGE_SIZE));
    const filter = [{ terms: { classes } }, ...accessClauses(access)];
    const ranked: estypes.QueryDslQueryContainer = {
      bool: {
        must: terms.map((term) => ({
          match_phrase_prefix: { text: { query: term, max_expansions: LONG_PREFIX_EXPANSIONS } },
        })),
        should: terms.map((term) => ({ match: { text: term } })),
        filter,
      },
    };
    if (cursor === undefined) {
      await this.ensureIndex();
      const pit = (await this.client.openPointInTime({ index: this.alias, keep_alive: this.keepAlive })).id;
      const { hits, pit: current } = await this.pitPage(ranked, pit, undefined, size + 1);
      const page = hits.slice(0, size);
      if (hits.length <= size) {
        await this.closePit(current);
        return { ids: page.map((hit) => hit.id), next: null };
      }
      return { ids: page.map((hit) => hit.id), next: this.encodeCursor(fingerprint, current, page) };
    }
    return this.laterPage(ranked, filter, cursor, fingerprint, size);
  }

  /**
   * A later page: the point-in-time ranking from the cursor on, keeping the objects that the live
   * index still holds and shows to the caller, until the page (and one more, to know whether a
   * page follows) is full or the ranking ends.
   */
  private async laterPage(
    ranked: estypes.QueryDslQueryContainer,
    filter: estypes.QueryDslQueryContainer[],
    cursor: Cursor,
    fingerprint: string,
    size: number,
  ): Promise<SearchPage> {
    const kept: Hit[] = [];
    let pit = cursor.pit;
    let after = cursor.after;
    for (;;) {
      const wanted = size + 1 - kept.length;
      const batch = await this.pitPage(ranked, pit, after, wanted);
      pit = batch.pit;
      const live = await this.liveIds(
        batch.hits.map((hit) => hit.id),
        filter,
      );
      kept.push(...batch.hits.filter((hit) => live.has(hit.id)));
      const last = batch.hits.at(-1);
      if (kept.length > size || batch.hits.length < wanted || last === undefined) break;
      after = last.sort;
    }
    const page = kept.slice(0, size);
    if (kept.length <= size) {
      await this.closePit(pit);
      return { ids: page.map((hit) => hit.id), next: null };
    }
    return { ids: page.map((hit) => hit.id), next: this.encodeCursor(fingerprint, pit, page) };
  }

  private async pitPage(
    query: estypes.QueryDslQueryContainer,
    pit: string,
    after: estypes.SortResults | undefined,
    size: number,
  ): Promise<{ hits: Hit[]; pit: string }> {
    try {
      const response = await this.client.search({
        pit: { id: pit, keep_alive: this.keepAlive },
        query,
        sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
        ...(after === undefined ? {} : { search_after: after }),
        size,
        track_total_hits: false,
        _source: false,
      });
      return {
        hits: response.hits.hits.map((hit) => ({ id: hit._id!, sort: hit.sort! })),
        pit: response.pit_id ?? pit,
      };
    } catch (error) {
      if (error instanceof errors.ResponseError && error.statusCode === 404) {
        throw new ValidationError('The search cursor has expired; search again.', [
          { field: 'cursor', message: 'expired' },
        ]);
      }
      throw error;
    }
  }

  /** The ids among `ids` that the live index holds and `filter` lets through now. */
  private async liveIds(
    ids: readonly string[],
    filter: estypes.QueryDslQueryContainer[],
  ): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const response = await this.client.search({
      index: this.alias,
      query: { bool: { filter: [{ ids: { values: [...ids] } }, ...filter] } },
      size: ids.length,
      track_total_hits: false,
      _source: false,
    });
    return new Set(response.hits.hits.map((hit) => hit._id!));
  }

  private async closePit(id: string): Promise<void> {
    // An unclosed point-in-time expires by itself; failing to close one is no reason to fail a search.
    await this.client.closePointInTime({ id }).catch(() => undefined);
  }

  /**
   * Fills a new index from the store (every object with the model's rule and its ACL ids), then
   * points the alias at it and deletes the old one in one atomic alias update. The new index starts
   * at the position of the old one as it was before the scan, so the indexer re-applies every
   * event that may have raced the scan (applying an event again is harmless: it re-reads the
   * object).
   */
  async rebuild(model: Model): Promise<number> {
    const previous = await this.concreteIndex();
    const position = await this.position(previous);
    const next = `${this.alias}-${Date.now().toString(36)}`;
    // No refreshes while it fills (nobody searches it yet): one at the end.
    await this.createIndex(next, false, { refresh_interval: '-1' });
    let count = 0;
    try {
      for (let after: string | null = null; ;) {
        const objects = await this.options.store.scan(after, REBUILD_BATCH);
        if (objects.length === 0) break;
        const documents = await Promise.all(
          objects.map(async (object) => ({
            id: object.id,
            classes: object.classes,
            aclIds: [...new Set((await this.options.store.aclRowsOf(object.id)).map((row) => row.acId))],
            text: searchTextOf(model, object),
          })),
        );
        await this.apply(
          next,
          documents.map((document) => ({ document, version: position.ordinal })),
          false,
        );
        count += documents.length;
        after = objects.at(-1)!.id;
      }
      await this.savePosition(next, position);
      await this.client.indices.putSettings({ index: next, settings: { refresh_interval: '1s' } });
      await this.client.indices.refresh({ index: next });
      await this.client.indices.updateAliases({
        actions: [
          { add: { index: next, alias: this.alias, is_write_index: true } },
          { remove_index: { index: previous } },
        ],
      });
    } catch (error) {
      await this.client.indices.delete({ index: next }, { ignore: [404] });
      throw error;
    }
    // An indexer that saved its position into the old index just after the swap has created it
    // again (automatic index creation): such leftovers go now.
    await this.deleteIndexes((name) => name !== next);
    return count;
  }

  /** Deletes every index of this tenant (tenant deletion, tests). */
  async drop(): Promise<void> {
    await this.deleteIndexes(() => true);
    this.ready = undefined;
  }

  private deleteIndexes(which: (name: string) => boolean): Promise<void> {
    return deleteTenantIndexes(this.client, this.alias, which);
  }

  /** Creates the tenant's first index and alias unless the alias exists (once per instance). */
  private ensureIndex(): Promise<void> {
    this.ready ??= this.createFirstIndex().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async createFirstIndex(): Promise<void> {
    if (await this.client.indices.existsAlias({ name: this.alias })) {
      // Indexes created before the position kept a cursor get the field (adding one is allowed).
      await this.client.indices.putMapping({
        index: this.alias,
        properties: { cursor: MAPPINGS.properties!.cursor! },
      });
      return;
    }
    await this.createIndex(`${this.alias}-0`, true);
  }

  private async createIndex(
    index: string,
    withAlias: boolean,
    extraSettings: estypes.IndicesIndexSettings = {},
  ): Promise<void> {
    try {
      await this.client.indices.create({
        index,
        settings: {
          number_of_shards: this.options.shards ?? 1,
          number_of_replicas: this.options.replicas ?? 1,
          ...extraSettings,
        },
        mappings: MAPPINGS,
        ...(withAlias ? { aliases: { [this.alias]: { is_write_index: true } } } : {}),
      });
    } catch (error) {
      // Another instance created the tenant's first index at the same moment.
      const exists =
        withAlias &&
        error instanceof errors.ResponseError &&
        error.body?.error?.type === 'resource_already_exists_exception';
      if (!exists) throw error;
    }
  }

  private encodeCursor(fingerprint: string, pit: string, page: readonly Hit[]): string {
    const cursor: Cursor = { q: fingerprint, pit, after: page.at(-1)!.sort };
    return seal(cursor, this.options.secret);
  }

  private decodeCursor(text: string, fingerprint: string): Cursor {
    const cursor = unseal(text, this.options.secret) as Cursor | null;
    if (cursor === null) throw invalidSearchCursor();
    if (cursor.q !== fingerprint) throw invalidSearchCursor();
    return cursor;
  }
}
