/** Test support of the BigQuery adapter (`@odp/warehouse-bigquery/testing`), never part of the published package. */
export { startBigQueryStandIn } from './bigquery-stand-in.js';
export type { BigQueryStandIn, StandInRequest } from './bigquery-stand-in.js';
