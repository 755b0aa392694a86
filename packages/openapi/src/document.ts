/**
 * The OpenAPI 3.1 description of one tenant's REST API, generated from its model
 * (`GET /metadata/{tenant}/openapi.json`): every data route of every class of the model with its
 * fields, filters, paging, sorting and errors, plus the tenant-wide routes (search, metadata,
 * events). Only routes the api serves are described. System classes are left out: they are reached
 * under `/system/...` only.
 */
import type { ClassDef, Model } from '@odp/core';
import { NON_INDEXED_TYPES, NUMERIC_TYPES } from '@odp/core';
import { BATCH_BODY, BATCH_RESULTS, classSchemas, ref, schemaNames, sharedSchemas } from './schemas.js';
import type { Schema } from './schemas.js';
import {
  ETAG_HEADER,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_PARAMETER,
  IF_MATCH,
  IF_NONE_MATCH,
} from './headers.js';

export interface OpenApiTarget {
  readonly tenantId: string;
  readonly tenantName: string;
  /** The api's public base address (`ODP_BASE_URL`). */
  readonly baseUrl: string;
}

export type OpenApiDocument = Readonly<Record<string, unknown>>;

type Operation = Record<string, unknown>;
type PathItem = Record<string, Operation>;

const PROBLEM_STATUSES = {
  '400': 'Bad request: the problem names the offending fields.',
  '401': 'No valid credential.',
  '403': 'The role or record-level access control forbids it.',
  '404': 'No such class, object or route (also when the object is not readable).',
  '409': 'Conflict: a unique value is taken, or a required relation still points at the object.',
  '412': 'If-Match names a version the object no longer has; nothing was written (`etag`: the current one).',
  '413': 'The batch holds more operations or bytes than the server accepts.',
  '422': 'The Idempotency-Key was used for a different request (method, path or body); nothing was written.',
  '429': 'Too many concurrent requests for the tenant; retry after `Retry-After` seconds.',
  '503': 'The tenant has no usable model (the problem names the model status).',
} as const;
type ProblemStatus = keyof typeof PROBLEM_STATUSES;

const problems = (...statuses: ProblemStatus[]): Record<string, Schema> =>
  Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/Problem${status}` }]));

const READ_ERRORS: ProblemStatus[] = ['400', '401', '403', '404', '429', '503'];
const WRITE_ERRORS: ProblemStatus[] = ['400', '401', '403', '404', '409', '503'];

const json = (schema: Schema, description: string): Schema => ({
  description,
  content: { 'application/json': { schema } },
});
const noBody = (description: string, location = true): Schema => ({
  description,
  ...(location ? { headers: { Location: { schema: { type: 'string' } } } } : {}),
});
const pathParam = (name: string, description: string): Schema => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});
const queryParam = (name: string, description: string, schema: Schema = { type: 'string' }): Schema => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});

const ID = pathParam('id', 'The object id (a UUID).');
const STREAM_VALUES = queryParam(
  'values',
  'true: create and update events also carry `values`, the current rendering of their `changed` fields.',
  { type: 'string', enum: ['true', 'false'] },
);
const PAGING = [
  queryParam('page', 'Zero-based page number.', { type: 'integer', minimum: 0, default: 0 }),
  queryParam('size', 'Objects per page.', { type: 'integer', minimum: 1, default: 20 }),
  queryParam(
    'sort',
    '`field`, `field,asc` or `field,desc`: a value field or a relation (by the related name).',
  ),
  queryParam(
    '_offset',
    'Position of the first object; overrides `page` (`next` links of shortened pages use it).',
    {
      type: 'integer',
      minimum: 0,
    },
  ),
  queryParam(
    'after',
    'Opaque keyset cursor from a `next` link: the page starts right after the row it names; overrides `page` and `_offset`.',
  ),
];

/** The filter parameters of a list of `cls` (interface spec, "List / query"). */
function filterParameters(cls: ClassDef): Schema[] {
  const out: Schema[] = [
    queryParam('q', 'Full-text prefix query; when present, structured filters are ignored.'),
    queryParam('_class', 'Comma-separated plural class names the objects must also have.'),
  ];
  for (const field of cls.fields.values()) {
    if (field.hidden || field.type === 'SECRET' || NON_INDEXED_TYPES.has(field.type)) continue;
    out.push(
      queryParam(field.name, `Equals (empty: has no value).`),
      queryParam(`${field.name}_from`, 'Greater than or equal.'),
      queryParam(`${field.name}_to`, 'Less than or equal.'),
      queryParam(`${field.name}_startswith`, 'Starts with.'),
      queryParam(`${field.name}_notempty`, 'Has a value.', { type: 'string', enum: [''] }),
    );
  }
  for (const end of cls.relations.values()) {
    out.push(
      queryParam(end.name, 'The related object’s name equals.'),
      queryParam(`${end.name}_startswith`, 'The related object’s name starts with.'),
      queryParam(`${end.name}_href`, 'The related object’s URI or id equals.'),
    );
  }
  return out;
}

function numericFields(cls: ClassDef): string[] {
  return [...cls.fields.values()]
    .filter((field) => NUMERIC_TYPES.has(field.type) && !field.hidden)
    .map((f) => f.name);
}

/** The list, distinct, values and aggregations operations of a class, at `base` (plain or related). */
function collectionPaths(
  cls: ClassDef,
  base: string,
  extraParameters: Schema[],
  operationPrefix: string,
): Record<string, PathItem> {
  const filters = filterParameters(cls);
  const numeric = numericFields(cls);
  const names = schemaNames(cls);
  const fieldList = (what: string): Schema =>
    queryParam(what, `Comma-separated numeric fields (${numeric.join(', ') || 'none'}).`);
  return {
    [base]: {
      get: {
        operationId: `${operationPrefix}List`,
        summary: `List ${cls.plural}`,
        parameters: [...extraParameters, ...filters, ...PAGING],
        responses: {
          '200': json(ref(names.page), 'One page; `next` appears when more exist.'),
          ...problems(...READ_ERRORS),
        },
      },
    },
    [`${base}/distinct`]: {
      get: {
        operationId: `${operationPrefix}Distinct`,
        summary: `Distinct values of a field or relation of ${cls.plural}`,
        parameters: [
          ...extraParameters,
          { ...queryParam('distinct', 'An indexed value field or a relation.'), required: true },
          queryParam(
            'sort',
            '`count`, `count,asc` or `count,desc` orders by frequency (default: by value); any other value is 400.',
          ),
          ...filters,
        ],
        responses: { '200': json(ref('DistinctResponse'), 'Buckets.'), ...problems(...READ_ERRORS) },
      },
    },
    [`${base}/values/{fieldName}`]: {
      get: {
        operationId: `${operationPrefix}Values`,
        summary: `Values of one field of ${cls.plural}`,
        parameters: [...extraParameters, pathParam('fieldName', 'A field of the class.'), ...filters],
        responses: {
          '200': json(ref('DataValues'), 'One entry per object with a value.'),
          ...problems(...READ_ERRORS),
        },
      },
    },
    [`${base}/aggregations`]: {
      get: {
        operationId: `${operationPrefix}Aggregations`,
        summary: `Aggregations over ${cls.plural}`,
        parameters: [...extraParameters, fieldList('sum'), fieldList('avg'), fieldList('count'), ...filters],
        responses: {
          '200': json(ref('Aggregations'), '`total` and the requested functions.'),
          ...problems(...READ_ERRORS),
        },
      },
    },
  };
}

const creatable = (cls: ClassDef): boolean => !cls.abstract && cls.attachableTo === null && !cls.system;

function classPaths(model: Model, cls: ClassDef): Record<string, PathItem> {
  const base = `/data/{tenant}/${cls.plural}`;
  const names = schemaNames(cls);
  const op = camel(cls.plural);
  const subclassParam = queryParam('class', 'Plural name of a concrete subclass to create.');
  const paths: Record<string, PathItem> = collectionPaths(cls, base, [], op);
  if (creatable(cls) || cls.descendants.length > 1) {
    paths[base] = {
      ...paths[base],
      post: {
        operationId: `${op}Create`,
        summary: `Create one of ${cls.plural}`,
        parameters: [subclassParam, IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: ref(names.create) } } },
        responses: {
          '201': noBody('Created; `Location` is the new object’s URI.'),
          ...problems(...WRITE_ERRORS, '422'),
        },
      },
    };
  }
  paths[`${base}/own`] = {
    get: {
      operationId: `${op}Own`,
      summary: `The object of ${cls.plural} the caller’s profile links to`,
      responses: { '200': json(ref(names.object), 'The object.'), ...problems('401', '403', '404', '503') },
    },
  };
  paths[`${base}/capabilities`] = {
    get: {
      operationId: `${op}CreateCapabilities`,
      summary: `Whether the caller may create ${cls.plural}`,
      parameters: [subclassParam],
      responses: { '200': json(ref('CreateCapabilities'), 'The decision.'), ...problems(...READ_ERRORS) },
    },
  };
  paths[`${base}/{id}`] = {
    get: {
      operationId: `${op}Get`,
      summary: `One of ${cls.plural}`,
      parameters: [ID, IF_NONE_MATCH],
      responses: {
        '200': { ...json(ref(names.object), 'The object.'), headers: ETAG_HEADER },
        '304': {
          description: 'Not modified: the object still has the version If-None-Match names.',
          headers: ETAG_HEADER,
        },
        '307': noBody('The object was merged into the one at `Location`.'),
        ...problems(...READ_ERRORS),
      },
    },
    patch: {
      operationId: `${op}Patch`,
      summary: `Change one of ${cls.plural}`,
      parameters: [ID, IF_MATCH],
      requestBody: { required: true, content: { 'application/json': { schema: ref(names.patch) } } },
      responses: { '204': noBody('Changed.'), ...problems(...WRITE_ERRORS, '412') },
    },
    delete: {
      operationId: `${op}Delete`,
      summary: `Delete one of ${cls.plural} (cascades as the model says)`,
      parameters: [ID, IF_MATCH],
      responses: { '200': noBody('Deleted.', false), ...problems(...WRITE_ERRORS, '412') },
    },
  };
  paths[`${base}/{id}/merge`] = {
    post: {
      operationId: `${op}Merge`,
      summary: `Merge another object into one of ${cls.plural}`,
      parameters: [ID, IF_MATCH],
      requestBody: { required: true, content: { 'application/json': { schema: ref('MergeBody') } } },
      responses: { '204': noBody('Merged; `Location` is the winner.'), ...problems(...WRITE_ERRORS, '412') },
    },
  };
  paths[`${base}/{id}/capabilities`] = {
    get: {
      operationId: `${op}Capabilities`,
      summary: `What the caller may do with one of ${cls.plural}`,
      parameters: [ID],
      responses: { '200': json(ref('ObjectCapabilities'), 'The decision.'), ...problems(...READ_ERRORS) },
    },
  };
  for (const end of cls.relations.values()) {
    const other = model.classes.get(end.otherClass);
    if (!other || other.system) continue;
    const related = `${base}/{id}/${end.name}`;
    const relatedOp = `${op}${capital(camel(end.name))}`;
    Object.assign(paths, collectionPaths(other, related, [ID], relatedOp));
    if (end.direction === 'inverse' && (creatable(other) || other.descendants.length > 1)) {
      paths[related] = {
        ...paths[related],
        post: {
          operationId: `${relatedOp}Create`,
          summary: `Create one of ${other.plural} linked to one of ${cls.plural} through ${end.relation.name}`,
          parameters: [ID, subclassParam, IDEMPOTENCY_KEY],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(schemaNames(other).create) } },
          },
          responses: { '201': noBody('Created.'), ...problems(...WRITE_ERRORS, '422') },
        },
      };
    }
    paths[`${related}/capabilities`] = {
      get: {
        operationId: `${relatedOp}CreateCapabilities`,
        summary: `Whether the caller may create ${other.plural} under this object`,
        parameters: [ID, subclassParam],
        responses: { '200': json(ref('CreateCapabilities'), 'The decision.'), ...problems(...READ_ERRORS) },
      },
    };
  }
  return paths;
}

function tenantPaths(): Record<string, PathItem> {
  const classesParam = queryParam('classes', 'Comma-separated plural class names (an object’s `_classes`).');
  const metadata = (name: string, summary: string): PathItem => ({
    get: {
      operationId: `metadata${capital(name)}`,
      summary,
      parameters: [{ ...classesParam, required: true }],
      responses: { '200': json({ type: 'object' }, summary), ...problems('400', '401', '403', '404', '503') },
    },
  });
  return {
    '/data/{tenant}/search': {
      get: {
        operationId: 'search',
        summary: 'Full-text search across classes',
        parameters: [
          { ...queryParam('q', 'Prefix query; terms combine with AND.'), required: true },
          queryParam(
            'classes',
            'Comma-separated plural class names (default: the tenant’s general search classes).',
          ),
          queryParam('size', 'Objects per page.', { type: 'integer', minimum: 1, default: 20 }),
          queryParam('cursor', 'Opaque; follow the `next` link.'),
        ],
        responses: { '200': json(ref('SearchPage'), 'One page of matches.'), ...problems(...READ_ERRORS) },
      },
    },
    '/data/{tenant}/eventStream': {
      get: {
        operationId: 'eventStream',
        summary: 'Change event stream (Server-Sent Events; resumes after `Last-Event-ID`)',
        parameters: [STREAM_VALUES],
        responses: {
          '200': {
            description: 'An event stream.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...problems('400', '401', '403', '503'),
        },
      },
    },
    '/data/{tenant}/eventStream/token': {
      get: {
        operationId: 'eventStreamToken',
        summary: 'A token that opens the event stream without a credential header (for EventSource)',
        parameters: [STREAM_VALUES],
        responses: {
          '200': json(
            {
              type: 'object',
              properties: {
                token: { type: 'string' },
                expiresAt: { type: 'string', format: 'date-time' },
                href: { type: 'string' },
              },
              required: ['token', 'expiresAt', 'href'],
            },
            'The token and the stream URL that carries it.',
          ),
          ...problems('400', '401', '403', '503'),
        },
      },
    },
    '/data/{tenant}/batch': {
      post: {
        operationId: 'batch',
        summary: 'Creates, creates related, patches and deletes written all together or not at all',
        parameters: [IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: BATCH_BODY } } },
        responses: {
          '200': json(BATCH_RESULTS, 'One result per operation, in order, as its own request answers it.'),
          ...problems('400', '401', '403', '404', '409', '412', '413', '422', '503'),
        },
      },
    },
    '/data/{tenant}/loadDefaultData': {
      post: {
        operationId: 'loadDefaultData',
        summary: 'Load the model’s default data (objects that exist are skipped)',
        responses: {
          '200': json(
            { type: 'object', properties: { created: { type: 'integer' }, skipped: { type: 'integer' } } },
            'How many objects were created and skipped.',
          ),
          ...problems('401', '403', '503'),
        },
      },
    },
    '/metadata/{tenant}/classes': {
      get: {
        operationId: 'metadataClasses',
        summary: 'The classes of the tenant’s model',
        responses: {
          '200': json({ type: 'object' }, 'The classes with their routes.'),
          ...problems('401', '403', '503'),
        },
      },
    },
    '/metadata/{tenant}/dataObject': metadata('dataObject', 'Fields and relations of a class combination'),
    '/metadata/{tenant}/relatedDataObject': metadata(
      'relatedDataObject',
      'Related lists of a class combination',
    ),
    '/metadata/{tenant}/form': metadata('form', 'What a create or edit form offers'),
  };
}

function camel(name: string): string {
  return name.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase());
}

function capital(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The document for one tenant under its current model. */
export function tenantOpenApi(model: Model, target: OpenApiTarget): OpenApiDocument {
  const classes = [...model.classes.values()].filter((cls) => !cls.system);
  const paths: Record<string, PathItem> = tenantPaths();
  const schemas: Record<string, Schema> = { ...sharedSchemas };
  for (const cls of classes) {
    Object.assign(paths, classPaths(model, cls));
    Object.assign(schemas, classSchemas(model, cls));
  }
  const tenantParam = {
    ...pathParam('tenant', 'The tenant id.'),
    schema: { type: 'string', enum: [target.tenantId] },
  };
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      operation['parameters'] = [tenantParam, ...((operation['parameters'] as Schema[] | undefined) ?? [])];
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${target.tenantName}: data API`,
      version: '1',
      description:
        'Generated from the tenant’s model. Errors are application/problem+json (RFC 9457). ' +
        'Authenticate with an API key (`X-API-Key`) or an access token (`Authorization: Bearer`), never both.',
    },
    servers: [{ url: target.baseUrl }],
    security: [{ apiKey: [] }, { bearerToken: [] }],
    paths,
    components: {
      schemas,
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
      responses: Object.fromEntries(
        Object.entries(PROBLEM_STATUSES).map(([status, description]) => [
          `Problem${status}`,
          {
            description,
            ...(status === '429' ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } } : {}),
            content: { 'application/problem+json': { schema: ref('Problem') } },
          },
        ]),
      ),
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
