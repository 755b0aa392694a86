export {
  DuckDbWarehouse,
  DUCKDB_TYPES,
  WarehouseTargetError,
  checkTarget,
  projectFile,
} from './duckdb-warehouse.js';
