export {
  ElasticsearchSearchIndex,
  LONG_PREFIX_EXPANSIONS,
  PREFIX_MAX_CHARS,
} from './search-elasticsearch.js';
export { foldSearchText } from './engine-query.js';
export type { ElasticsearchSearchIndexOptions, VersionedChange } from './search-elasticsearch.js';
export { SearchIndexer } from './indexer.js';
export type { SearchIndexerOptions } from './indexer.js';
export { ElasticsearchEngine } from './engine.js';
export type { ElasticsearchEngineOptions, TenantElasticsearch } from './engine.js';
