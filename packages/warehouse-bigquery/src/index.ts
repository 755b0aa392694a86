export { BigQueryWarehouse, WarehouseWriteError } from './bigquery-warehouse.js';
export type { BigQueryWarehouseOptions } from './bigquery-warehouse.js';
export { CredentialsError, BIGQUERY_SCOPE } from './service-account.js';
export { bigQueryTargetProblem } from './target-names.js';
