import { DATA_TYPES } from '@odp/core';

/**
 * JSON Schemas (draft-07) of every model file kind in definition format 2 (docs/model-format.md).
 * They check shape only; references between files are checked afterwards by the loader.
 */

export const CURRENT_FORMAT = 2;
export const MODEL_FILE_KINDS = ['class', 'list', 'accessControl', 'roles', 'tenant', 'migration'] as const;
export type ModelFileKind = (typeof MODEL_FILE_KINDS)[number];

export const QUALIFIED_NAME_PATTERN = '^[a-z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*$';
export const MEMBER_NAME_PATTERN = '^[a-z][A-Za-z0-9]*$';

const qualifiedName = { type: 'string', pattern: QUALIFIED_NAME_PATTERN } as const;
const memberName = { type: 'string', pattern: MEMBER_NAME_PATTERN } as const;
const text = { type: 'string' } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;
const flag = { type: 'boolean' } as const;
const operations = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { enum: ['READ', 'WRITE', 'CREATE', 'DELETE'] },
} as const;

function envelope(kind: ModelFileKind, required: readonly string[], properties: Record<string, unknown>) {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `Model file of kind ${kind}`,
    type: 'object',
    required: ['version', 'kind', ...required],
    additionalProperties: false,
    properties: { version: { const: CURRENT_FORMAT }, kind: { const: kind }, ...properties },
  } as const;
}

const fieldSchema = {
  type: 'object',
  required: ['name', 'type'],
  additionalProperties: false,
  properties: {
    name: memberName,
    type: { enum: DATA_TYPES },
    required: flag,
    multiple: flag,
    default: {},
    formula: { type: ['string', 'null'] },
    onlyWhenMissing: flag,
    hidden: flag,
    history: flag,
    list: { type: ['string', 'null'] },
    unique: flag,
    label: text,
    description: text,
  },
} as const;

const relationSchema = {
  type: 'object',
  required: ['name', 'target'],
  additionalProperties: false,
  properties: {
    name: memberName,
    target: qualifiedName,
    multiple: flag,
    required: flag,
    cascadeDelete: flag,
    inverse: memberName,
    label: text,
    description: text,
  },
} as const;

const scriptSchema = {
  type: 'object',
  required: ['name', 'type', 'trigger'],
  additionalProperties: false,
  properties: {
    name: memberName,
    type: { enum: ['CONSUMER_GATEWAY', 'SET_VALUES'] },
    gateway: { enum: ['Mail', 'UserInvitation', 'Webhook', 'DatastoreReplicator'] },
    scope: { const: 'OBJECT' },
    trigger: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: ['MANUAL', 'CREATE', 'UPDATE', 'DELETE'] },
    },
    condition: text,
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        minProperties: 2,
        maxProperties: 2,
        properties: { name: nonEmpty, value: text, formula: text, templateFile: text },
      },
    },
    set: { type: 'object', additionalProperties: text },
  },
} as const;

const reportSchema = {
  type: 'object',
  required: ['name', 'template', 'format'],
  additionalProperties: false,
  properties: {
    name: memberName,
    template: nonEmpty,
    format: { enum: ['pdf', 'html'] },
    languages: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z]{2}(-[A-Z]{2})?$' } },
  },
} as const;

export const classFileSchema = envelope('class', ['class'], {
  class: qualifiedName,
  plural: memberName,
  extends: { type: 'array', items: qualifiedName },
  abstract: flag,
  attachableTo: { type: ['array', 'null'], minItems: 1, items: qualifiedName },
  nameFormula: text,
  label: text,
  description: text,
  fields: { type: 'array', items: fieldSchema },
  relations: { type: 'array', items: relationSchema },
  scripts: { type: 'array', items: scriptSchema },
  reports: { type: 'array', items: reportSchema },
});

export const listFileSchema = envelope('list', ['list', 'values'], {
  list: qualifiedName,
  label: text,
  values: {
    type: 'array',
    items: {
      type: 'object',
      required: ['key', 'label'],
      additionalProperties: false,
      properties: { key: nonEmpty, label: text },
    },
  },
});

export const accessControlFileSchema = envelope('accessControl', ['name', 'nodes'], {
  name: memberName,
  anchor: qualifiedName,
  description: text,
  grantToUsers: {
    type: 'array',
    items: {
      type: 'object',
      required: ['id', 'relation'],
      additionalProperties: false,
      properties: { id: nonEmpty, relation: memberName },
    },
  },
  nodes: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['id', 'operations'],
      additionalProperties: false,
      properties: {
        id: nonEmpty,
        path: { type: 'array', items: memberName },
        class: qualifiedName,
        operations,
      },
    },
  },
});

export const rolesFileSchema = envelope('roles', ['roles'], {
  roles: {
    type: 'array',
    items: {
      type: 'object',
      required: ['name', 'grants'],
      additionalProperties: false,
      properties: {
        name: memberName,
        grants: {
          type: 'array',
          items: {
            type: 'object',
            required: ['definition'],
            additionalProperties: false,
            properties: { definition: memberName, operations },
          },
        },
      },
    },
  },
});

export const tenantFileSchema = envelope('tenant', [], {
  generalSearchClasses: { type: 'array', uniqueItems: true, items: memberName },
});

/** The migration file's envelope; the MigrationDefinition itself is checked by @odp/migration-schema. */
export const migrationFileSchema = envelope('migration', ['migration'], {
  class: qualifiedName,
  migration: { type: 'object' },
});

/** Default data files under `data/`. */
export const dataFileSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Default data file',
  type: 'object',
  required: ['version', 'kind', 'objects'],
  additionalProperties: false,
  properties: {
    version: { const: CURRENT_FORMAT },
    kind: { const: 'data' },
    objects: {
      type: 'array',
      items: {
        type: 'object',
        required: ['_class', '_id'],
        properties: {
          _class: memberName,
          _id: {
            type: 'string',
            pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
          },
        },
      },
    },
  },
} as const;

/** Every schema the loader applies, by file kind (`data` for default data files). */
export const modelFileSchemas = {
  class: classFileSchema,
  list: listFileSchema,
  accessControl: accessControlFileSchema,
  roles: rolesFileSchema,
  tenant: tenantFileSchema,
  migration: migrationFileSchema,
  data: dataFileSchema,
} as const;
