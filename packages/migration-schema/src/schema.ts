/**
 * The MigrationDefinition of the interface specification (section "Migration definition"), as
 * TypeScript types and as a JSON Schema (draft-07). Migration is a beta
 * feature, outside the compatibility guarantee.
 */

/** A configuration parameter the migration tool needs. */
export interface FieldDefinition {
  readonly name: string;
  readonly type?: string;
  readonly label?: string;
  readonly required?: boolean;
  readonly description?: string;
}

export interface FieldMapping {
  readonly source: string;
  readonly target: string;
  /** `OBJECT` marks nested object fields the tool handles separately. */
  readonly type?: string;
  /** Fallback when the source is absent or empty. */
  readonly defaultValue?: string;
  /** True: the field is used for duplicate detection. */
  readonly key?: boolean;
}

export interface RelationMapping {
  readonly source: string;
  /** Qualified class name of the related objects. */
  readonly target: string;
  /** True: many-to-many; the PATCH sends an array under the plural REST name. */
  readonly multiple?: boolean;
  readonly prefix?: string;
  /** True: resolved in a second pass, by PATCH, after every object of every step exists. */
  readonly deferred?: boolean;
}

export interface MigrationStep {
  readonly source: string;
  /** Qualified class name. */
  readonly target: string;
  readonly prefix?: string;
  readonly fields: readonly FieldMapping[];
  readonly relations: readonly RelationMapping[];
}

export interface MnRelationMapping {
  readonly source?: string;
  readonly sourceFrom: string;
  readonly targetFrom: string;
  readonly sourceTo: string;
  readonly targetTo: string;
}

export interface MigrationDefinition {
  readonly migrationType: string;
  readonly parameters?: readonly FieldDefinition[];
  readonly steps: readonly MigrationStep[];
  readonly valueMap?: Readonly<Record<string, string>>;
  readonly mnRelations?: readonly MnRelationMapping[];
}

const QUALIFIED_NAME = '^[a-z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*$';
const nonEmpty = { type: 'string', minLength: 1 } as const;
const qualified = { type: 'string', pattern: QUALIFIED_NAME } as const;

/** JSON Schema of MigrationDefinition; published at `GET /metadata/{tenantId}/migrationDefinition`. */
export const migrationDefinitionSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://odp.example/schemas/migration-definition.json',
  title: 'MigrationDefinition',
  description: 'How a legacy system is imported by an external migration tool (beta).',
  type: 'object',
  required: ['migrationType', 'steps'],
  additionalProperties: false,
  properties: {
    migrationType: { ...nonEmpty, description: 'Identifier of the legacy system.' },
    parameters: {
      type: 'array',
      description: 'Configuration parameters the migration tool needs.',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: true,
        properties: {
          name: nonEmpty,
          type: { type: 'string' },
          label: { type: 'string' },
          required: { type: 'boolean' },
          description: { type: 'string' },
        },
      },
    },
    steps: {
      type: 'array',
      description: 'Ordered entity mappings.',
      items: {
        type: 'object',
        required: ['source', 'target', 'fields', 'relations'],
        additionalProperties: false,
        properties: {
          source: nonEmpty,
          target: qualified,
          prefix: { type: 'string' },
          fields: {
            type: 'array',
            items: {
              type: 'object',
              required: ['source', 'target'],
              additionalProperties: false,
              properties: {
                source: nonEmpty,
                target: nonEmpty,
                type: { type: 'string' },
                defaultValue: { type: 'string' },
                key: { type: 'boolean' },
              },
            },
          },
          relations: {
            type: 'array',
            items: {
              type: 'object',
              required: ['source', 'target'],
              additionalProperties: false,
              properties: {
                source: nonEmpty,
                target: qualified,
                multiple: { type: 'boolean', default: false },
                prefix: { type: 'string' },
                deferred: { type: 'boolean', default: false },
              },
            },
          },
        },
      },
    },
    valueMap: { type: 'object', additionalProperties: { type: 'string' } },
    mnRelations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sourceFrom', 'targetFrom', 'sourceTo', 'targetTo'],
        additionalProperties: false,
        properties: {
          source: { type: 'string' },
          sourceFrom: nonEmpty,
          targetFrom: qualified,
          sourceTo: nonEmpty,
          targetTo: qualified,
        },
      },
    },
  },
} as const;
