/**
 * The search side of the composition root, chosen by `ODP_SEARCH`: `sqlite` (default) is the index
 * each tenant's document store keeps with its writes (FTS5 in the SQLite file, or the search words
 * on the object documents with `ODP_STORE=mongodb`); `elasticsearch` is one
 * cluster connection for the process and, per tenant, an index fed by an indexer from the store's
 * change events (`@odp/search-elasticsearch`).
 */
import type { Config } from '@odp/config';
import type { Model, SearchIndex } from '@odp/core';
import type { TenantStoreWithSearch } from './tenant-stores.js';
import type { Logger } from './log.js';

/** How long a tenant's indexing may fail, retried every poll, before each failure is logged as an error. */
export const INDEXING_FAILURE_ERROR_MS = 30_000;

/** One tenant's search: the index the services use and what keeps it up to date. */
export interface TenantSearch {
  readonly index: SearchIndex;
  /** The model that decides the searchable text from now on (after a model reload). */
  useModel(model: Model): void;
  /** Called after every committed write. */
  notify(): void;
  close(): Promise<void>;
}

export interface SearchEngine {
  tenant(tenantId: string, store: TenantStoreWithSearch, model: Model): TenantSearch;
  /**
   * Deletes the tenant's index (tenant deletion); its TenantSearch must be closed. The store's own
   * index goes with the store.
   */
  dropTenant(tenantId: string): Promise<void>;
  /** Resolves when the engine answers; rejects with a one-line reason. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** The engine of `ODP_SEARCH`; the Elasticsearch adapter (and its client, slow to load) is imported only when selected. */
export async function openSearchEngine(config: Config, log: Logger): Promise<SearchEngine> {
  if (config.search.kind === 'sqlite') {
    return {
      tenant: (_tenantId, store) => ({
        index: store.search,
        useModel: () => undefined,
        notify: () => undefined,
        close: async () => undefined,
      }),
      dropTenant: async () => undefined,
      verify: async () => undefined,
      close: async () => undefined,
    };
  }
  const { ElasticsearchEngine } = await import('@odp/search-elasticsearch');
  const engine = new ElasticsearchEngine({
    url: config.search.url,
    secretKey: config.secretKey,
    onError: (tenantId, error, failingMs) => {
      const fields = { tenantId, error: error instanceof Error ? error.message : String(error) };
      // A cluster briefly unable to index (a shard still recovering after its index was created or
      // the node restarted) is retried at the next poll: an error only once it lasts.
      if (failingMs < INDEXING_FAILURE_ERROR_MS) log.info('search indexing failed; retrying', fields);
      else log.error('search indexing failed', { ...fields, failingSeconds: Math.round(failingMs / 1000) });
    },
  });
  return {
    tenant: (tenantId, store, model) => engine.tenant(tenantId, store, model),
    dropTenant: (tenantId) => engine.dropTenant(tenantId),
    verify: () => engine.verify(),
    close: () => engine.close(),
  };
}
