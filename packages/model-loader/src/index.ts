export { loadModelRepository, buildModel } from './load.js';
export type { ModelLoadResult } from './load.js';
export { bundleOf, contentOfBundle, loadModelBundle, modelCandidate } from './bundle.js';
export type { ModelBundle, ModelCandidate } from './bundle.js';
export { readRepository, MAX_FILE_BYTES, MAX_FILES, MAX_JSON_DEPTH } from './read.js';
export type { RepositoryContent, RepositoryFile } from './read.js';
export { MAX_CLASSES, RESERVED_PLURALS } from './classes.js';
export { derivePlural } from './plural.js';
export { BUILT_IN_CLASSES, BUILT_IN_LISTS } from './builtins.js';
export {
  modelFileSchemas,
  classFileSchema,
  listFileSchema,
  accessControlFileSchema,
  rolesFileSchema,
  tenantFileSchema,
  migrationFileSchema,
  dataFileSchema,
  CURRENT_FORMAT,
  MODEL_FILE_KINDS,
} from './schemas.js';
export type { ModelFileKind } from './schemas.js';
export { modelStatusOf, TenantModel } from './status.js';
export type { ModelState, ModelStatus, TenantModelOptions } from './status.js';
export { upgradeModelRepository, UPGRADE_REPORT_FILE } from './upgrade.js';
export type { ModelUpgrade } from './upgrade.js';
export {
  classCombination,
  describeClasses,
  describeDataObject,
  describeForm,
  describeRelatedDataObject,
} from './metadata.js';
export type {
  ClassDescription,
  DataObjectDescription,
  FieldDescription,
  FormDescription,
  ListValuesDescription,
  RelatedDataObjectDescription,
  RelatedListDescription,
  RelationDescription,
} from './metadata.js';
