export { migrationDefinitionSchema } from './schema.js';
export type {
  FieldDefinition,
  FieldMapping,
  MigrationDefinition,
  MigrationStep,
  MnRelationMapping,
  RelationMapping,
} from './schema.js';
export { describeSchemaError, validateMigration } from './validate.js';
export type { MigrationIssue } from './validate.js';
