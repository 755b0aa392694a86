/**
 * JSON Schemas (OpenAPI 3.1 dialect) of one tenant's objects as the data API reads and writes them
 * (interface spec, "DataObject" and "Create"): one read schema, one create body and one patch body
 * per class, and the shared shapes every tenant has.
 */
import type { ClassDef, DataType, FieldDef, Model, RelationEnd } from '@odp/core';

export type Schema = Readonly<Record<string, unknown>>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Component names of a class's schemas. Plurals are valid component names (letters, digits, `_`). */
export const schemaNames = (cls: ClassDef) => ({
  object: cls.plural,
  create: `${cls.plural}.create`,
  patch: `${cls.plural}.patch`,
  page: `${cls.plural}.page`,
});

const link: Schema = {
  type: 'object',
  properties: { href: { type: 'string' }, name: { type: ['string', 'null'] } },
  required: ['href'],
};

/** The shapes shared by every tenant's document. */
export const sharedSchemas: Readonly<Record<string, Schema>> = {
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details (application/problem+json).',
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, message: { type: 'string' } },
          required: ['field', 'message'],
        },
      },
    },
    required: ['title', 'status'],
  },
  Link: link,
  MultiLink: {
    type: 'object',
    properties: {
      href: { type: 'string' },
      values: { type: 'array', items: link },
      /** Inverse sides only: `values` holds the first 20 linkers and more exist (docs/data-api.md). */
      more: { type: 'boolean' },
    },
    required: ['href'],
  },
  FileDescriptor: {
    type: 'object',
    properties: {
      href: { type: 'string' },
      fileName: { type: 'string' },
      contentType: { type: 'string' },
      size: { type: 'integer', minimum: 0 },
    },
    required: ['href', 'fileName', 'contentType', 'size'],
  },
  PageLinks: {
    type: 'object',
    properties: Object.fromEntries(['self', 'first', 'prev', 'next', 'excel'].map((key) => [key, link])),
    required: ['self'],
  },
  DistinctResponse: {
    type: 'object',
    properties: {
      values: {
        type: 'array',
        items: {
          type: 'object',
          properties: { value: {}, count: { type: 'integer' } },
          required: ['value', 'count'],
        },
      },
    },
    required: ['values'],
  },
  DataValues: {
    type: 'array',
    items: {
      type: 'object',
      properties: { value: {}, link: { type: 'string' } },
      required: ['value', 'link'],
    },
  },
  Aggregations: {
    type: 'object',
    properties: {
      total: { type: 'integer' },
      sum: { type: 'object', additionalProperties: { type: 'number' } },
      avg: { type: 'object', additionalProperties: { type: 'number' } },
      count: { type: 'object', additionalProperties: { type: 'integer' } },
    },
    required: ['total'],
  },
  ObjectCapabilities: {
    type: 'object',
    properties: { mayModify: { type: 'boolean' }, mayDelete: { type: 'boolean' } },
    required: ['mayModify', 'mayDelete'],
  },
  CreateCapabilities: {
    type: 'object',
    properties: {
      mayCreate: { type: 'boolean' },
      allowedClasses: { type: 'array', items: { type: 'string' } },
    },
    required: ['mayCreate', 'allowedClasses'],
  },
  MergeBody: {
    type: 'object',
    properties: {
      loser: { type: 'string', description: 'Id or URI of the object merged away (its last 36 characters).' },
      patch: { type: 'object', description: 'A patch body applied to the winner.' },
    },
    required: ['loser'],
  },
  SearchPage: {
    type: 'object',
    properties: {
      _embedded: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object' } } },
      _links: ref('PageLinks'),
    },
    required: ['_embedded', '_links'],
  },
};

/** The wire form of one value of a data type (docs/data-api.md, "Values"). */
function valueSchema(model: Model, field: FieldDef): Schema {
  const byType: Record<DataType, () => Schema> = {
    TEXT: () => ({ type: 'string' }),
    TEXTBLOCK: () => ({ type: 'string' }),
    LONGTEXT: () => ({ type: 'string' }),
    SECRET: () => ({ type: 'string' }),
    EMAIL: () => ({ type: 'string', format: 'email' }),
    INTEGER: () => ({ type: 'integer' }),
    DECIMAL: () => ({ type: 'number' }),
    CURRENCY: () => ({ type: 'number' }),
    PERCENTAGE: () => ({ type: 'number' }),
    BOOLEAN: () => ({ type: 'boolean' }),
    DATE: () => ({ type: 'string', format: 'date' }),
    DATETIME: () => ({ type: 'string', format: 'date-time' }),
    TIME: () => ({ type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d)?$' }),
    LIST: () => {
      const list = field.list === undefined ? undefined : model.lists.get(field.list);
      return { type: 'string', enum: list?.values.map((entry) => entry.key) ?? [] };
    },
    JSON: () => ({}),
    ARRAY: () => ({ type: 'array', items: { type: ['string', 'number'] } }),
    FILE: () => ref('FileDescriptor'),
    IMAGE: () => ref('FileDescriptor'),
  };
  const one = byType[field.type]();
  return field.multiple && field.type !== 'ARRAY' ? { type: 'array', items: one } : one;
}

function describedField(field: FieldDef, schema: Schema): Schema {
  return {
    ...schema,
    ...(field.label === undefined ? {} : { title: field.label }),
    ...(field.formula === undefined ? {} : { description: `Formula: ${field.formula.source}` }),
  };
}

/** A field as read: history-enabled fields are `{current, history}`. */
function readSchema(model: Model, field: FieldDef): Schema {
  const value = valueSchema(model, field);
  if (!field.history) return describedField(field, value);
  return describedField(field, {
    type: 'object',
    properties: {
      current: value,
      history: {
        type: 'array',
        items: {
          type: 'object',
          properties: { value, validFrom: { type: 'string' }, modifiedBy: { type: ['string', 'null'] } },
        },
      },
    },
    required: ['current'],
  });
}

const visible = (field: FieldDef): boolean => !field.hidden && field.type !== 'SECRET';
/** A formula that runs on every save overwrites what a client sends. */
const computed = (field: FieldDef): boolean => field.formula !== undefined && !field.onlyWhenMissing;
const settable = (end: RelationEnd): boolean => end.direction === 'forward';

function relationLinkSchema(end: RelationEnd): Schema {
  return end.multiple ? ref('MultiLink') : ref('Link');
}

function relationWriteSchema(end: RelationEnd): Schema {
  const uri: Schema = { type: 'string', description: 'The URI (or id) of the related object.' };
  return end.multiple ? { type: 'array', items: uri } : uri;
}

/** The read, create and patch schemas and the page schema of one class, by component name. */
export function classSchemas(model: Model, cls: ClassDef): Record<string, Schema> {
  const names = schemaNames(cls);
  const fields = [...cls.fields.values()];
  const relations = [...cls.relations.values()];
  const writable = fields.filter((field) => !computed(field));

  const object: Schema = {
    type: 'object',
    description: `An object of class ${cls.name}. Objects may carry more fields through classes they gain.`,
    properties: {
      _class: { type: 'string' },
      _classes: { type: 'array', items: { type: 'string' } },
      _creationDate: { type: 'string', format: 'date-time' },
      _modificationDate: { type: 'string', format: 'date-time' },
      ...Object.fromEntries(fields.filter(visible).map((field) => [field.name, readSchema(model, field)])),
      _links: {
        type: 'object',
        properties: {
          _self: ref('Link'),
          ...Object.fromEntries(relations.map((end) => [end.name, relationLinkSchema(end)])),
        },
        required: ['_self'],
      },
    },
    required: ['_class', '_classes', '_creationDate', '_modificationDate', '_links'],
  };

  const writeProperties = Object.fromEntries([
    ...writable.map((field) => [field.name, describedField(field, valueSchema(model, field))]),
    ...relations.filter(settable).map((end) => [end.name, relationWriteSchema(end)]),
  ]);
  const create: Schema = {
    type: 'object',
    description: 'Keys that are not a field or relation of the class are ignored.',
    properties: writeProperties,
    required: [
      ...writable.filter((field) => field.required && field.default === undefined).map((f) => f.name),
      ...relations.filter((end) => settable(end) && end.relation.required).map((end) => end.name),
    ],
  };
  const patch: Schema = {
    type: 'object',
    description: 'An absent key leaves the value unchanged; null or "" clears it.',
    properties: Object.fromEntries(
      Object.entries(writeProperties).map(([key, schema]) => [
        key,
        { anyOf: [schema, { type: 'null' }, { const: '' }] },
      ]),
    ),
  };
  const page: Schema = {
    type: 'object',
    properties: {
      _embedded: {
        type: 'object',
        properties: { [cls.plural]: { type: 'array', items: ref(names.object) } },
      },
      _links: ref('PageLinks'),
    },
    required: ['_embedded', '_links'],
  };
  return { [names.object]: object, [names.create]: create, [names.patch]: patch, [names.page]: page };
}

/** The body of `POST /data/{tenant}/batch` (docs/data-api.md, Batch). */
export const BATCH_BODY: Schema = {
  type: 'object',
  required: ['operations'],
  properties: {
    operations: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['method', 'path'],
        properties: {
          method: { type: 'string', enum: ['POST', 'PATCH', 'DELETE'] },
          path: {
            type: 'string',
            description:
              'Relative to /data/{tenant}: /{typeName}, /{relatedTypeName}/{relatedId}/{typeName}, /{typeName}/{id}.',
          },
          body: { type: 'object', description: 'The body of a POST or PATCH.' },
          ifMatch: { type: 'string', description: 'If-Match of a PATCH or DELETE.' },
        },
      },
    },
  },
};
/** The answer of a batch: one result per operation. */
export const BATCH_RESULTS: Schema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { status: { type: 'integer' }, id: { type: 'string' }, location: { type: 'string' } },
      },
    },
  },
};
