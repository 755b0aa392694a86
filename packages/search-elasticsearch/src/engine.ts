/**
 * One connection to an Elasticsearch cluster shared by every tenant of a process, and the
 * composition of one tenant's search on it: its index behind the alias `odp-<tenant id>`, the
 * indexer that feeds it from the tenant store's change events, and the index as the services see
 * it, whose searches first let the indexer catch up (see {@link TenantElasticsearch.index}).
 */
import { createHmac } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import type { AccessFilter, Model, SearchIndex, SearchPage, SearchQuery, TenantStore } from '@odp/core';
import { SearchIndexer } from './indexer.js';
import { ElasticsearchSearchIndex } from './search-elasticsearch.js';
import { deleteTenantIndexes } from './tenant-indexes.js';

export interface TenantElasticsearch {
  /**
   * The tenant's index for the services. A search first applies the change events committed
   * before it (one position read and one event read when there are none), so a search run after a
   * write has returned, on any api instance, finds the written object.
   */
  readonly index: SearchIndex;
  /** The model that decides the searchable text of the objects indexed from now on. */
  useModel(model: Model): void;
  /** Wakes the indexer after a committed write. */
  notify(): void;
  /** Stops the indexer (the connection stays open for the other tenants). */
  close(): Promise<void>;
}

export interface ElasticsearchEngineOptions {
  /** Cluster address, as `ODP_ELASTICSEARCH_URL` gives it. */
  readonly url: string;
  /** Key material the cursor signing keys of every tenant are derived from (shared by all instances). */
  readonly secretKey: string;
  /**
   * A failed background indexing round (it is retried at the next poll), with how long the
   * tenant's rounds have been failing (`SearchIndexerOptions.onError`).
   */
  readonly onError: (tenantId: string, error: unknown, failingMs: number) => void;
}

/** The alias of a tenant's index: `odp-<tenant id>`. */
function tenantAlias(tenantId: string): string {
  return `odp-${tenantId.toLowerCase().replace(/[^a-z0-9_-]/g, '_')}`;
}

export class ElasticsearchEngine {
  private readonly client: Client;

  constructor(private readonly options: ElasticsearchEngineOptions) {
    this.client = new Client({ node: options.url, requestTimeout: 30_000 });
  }

  /** Resolves when the cluster answers; rejects with one line naming the address (without credentials). */
  async verify(): Promise<void> {
    try {
      await this.client.cluster.health({ timeout: '5s' }, { requestTimeout: 5000, maxRetries: 0 });
    } catch (error) {
      const address = new URL(this.options.url);
      address.username = '';
      address.password = '';
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new Error(`Elasticsearch at ${address.origin} does not answer: ${reason}`);
    }
  }

  /** Deletes every index of the tenant (tenant deletion); stop its TenantElasticsearch first. */
  dropTenant(tenantId: string): Promise<void> {
    return deleteTenantIndexes(this.client, tenantAlias(tenantId));
  }

  tenant(tenantId: string, store: TenantStore, model: Model): TenantElasticsearch {
    let current = model;
    const search = new ElasticsearchSearchIndex({
      client: this.client,
      alias: tenantAlias(tenantId),
      store,
      secret: createHmac('sha256', this.options.secretKey).update(`search-cursor:${tenantId}`).digest(),
    });
    const indexer = new SearchIndexer({
      store,
      index: search,
      model: () => current,
      onError: (error, failingMs) => this.options.onError(tenantId, error, failingMs),
    });
    indexer.start();
    const index: SearchIndex = {
      maintainedByStore: false,
      index: (documents) => search.index(documents),
      remove: (ids) => search.remove(ids),
      rebuild: (rebuildModel) => search.rebuild(rebuildModel),
      async search(query: SearchQuery, access: AccessFilter): Promise<SearchPage> {
        await indexer.catchUp();
        return search.search(query, access);
      },
    };
    return {
      index,
      useModel: (next) => {
        current = next;
      },
      notify: () => indexer.notify(),
      close: () => indexer.stop(),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
