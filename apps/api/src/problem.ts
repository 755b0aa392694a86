import { AppError, isAppError, ValidationError } from '@odp/core';
import type { ErrorCode, FieldError } from '@odp/core';

/** The one place error codes become HTTP statuses. Exhaustive: a new code fails the typecheck here. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  NO_ROUTE: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  RANGE_NOT_SATISFIABLE: 416,
  MODEL_REFUSED: 422,
  REPORT_FAILED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

const TITLE_BY_CODE: Record<ErrorCode, string> = {
  VALIDATION: 'Invalid request',
  UNAUTHENTICATED: 'Unauthenticated',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  NO_ROUTE: 'No such route',
  CONFLICT: 'Conflict',
  PRECONDITION_FAILED: 'Precondition failed',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  RANGE_NOT_SATISFIABLE: 'Range not satisfiable',
  MODEL_REFUSED: 'Model refused',
  REPORT_FAILED: 'Report not rendered',
  RATE_LIMITED: 'Rate limit reached',
  INTERNAL: 'Internal error',
  UNAVAILABLE: 'Unavailable',
};

/** An RFC 9457 problem body, plus the client-safe `extra` members of the error. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly [member: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Field errors a problem body lists at most; the rest are counted in `errorsNotShown`, so a body
 * with a problem in each of thousands of values gets an answer of bounded size.
 */
export const MAX_REPORTED_FIELD_ERRORS = 100;

/** A generic body for anything that is not an AppError: no message, stack, SQL or driver text. */
const INTERNAL_ERROR = new AppError(
  'INTERNAL',
  'The request could not be completed because of an internal error.',
);

/**
 * Messages for the client errors that express's own layers raise before a route runs, by their
 * `type` (set by the body parsers: reading, inflating and parsing a body).
 */
const MESSAGE_BY_HTTP_ERROR_TYPE: Readonly<Record<string, string>> = {
  'entity.parse.failed': 'The request body is not valid JSON.',
  'encoding.unsupported': 'The request body has an unsupported Content-Encoding (use gzip, deflate or br).',
  'charset.unsupported': 'The request body has an unsupported charset (use utf-8).',
  'request.aborted': 'The client aborted the request.',
  'request.size.invalid': 'The request body does not match its Content-Length.',
};

/** The message of a decompression failure: the body's bytes are not what its Content-Encoding says. */
const ENCODING_MISMATCH = 'The request body does not match its Content-Encoding.';

/**
 * The platform error for an error raised by express's own layers (http-errors objects: the router
 * decoding a path parameter, the body parsers reading, inflating and parsing a body), so that the
 * table above stays the only place a status is chosen. Such an error is recognised by a 4xx
 * `status` together with `expose` (http-errors' mark of a client error) or a URIError (a bad
 * %-escape). Anything else is not translated (and becomes a 500).
 */
export function clientErrorOf(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, expose, type, code } = error as {
    status?: unknown;
    expose?: unknown;
    type?: unknown;
    code?: unknown;
  };
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) {
    return new ValidationError('A path segment is not valid percent-encoding.');
  }
  if (expose !== true) return undefined;
  if (type === 'entity.too.large')
    return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this route accepts.');
  const message = typeof type === 'string' ? MESSAGE_BY_HTTP_ERROR_TYPE[type] : undefined;
  if (message !== undefined) return new ValidationError(message);
  return typeof code === 'string' && type === undefined
    ? new ValidationError(ENCODING_MISMATCH)
    : new ValidationError('The request is malformed.');
}

/**
 * The problem body for an error: an AppError by its code, a client error of express's layers as
 * {@link clientErrorOf} translates it; anything else becomes a generic 500.
 */
export function problemOf(error: unknown): Problem {
  const appError = isAppError(error) ? error : (clientErrorOf(error) ?? INTERNAL_ERROR);
  const problem: Problem = {
    ...appError.extra,
    type: `urn:odp:problem:${appError.code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLE_BY_CODE[appError.code],
    status: STATUS_BY_CODE[appError.code],
    detail: appError.message,
  };
  const errors = appError.fieldErrors;
  if (errors.length === 0) return problem;
  if (errors.length <= MAX_REPORTED_FIELD_ERRORS) return { ...problem, errors };
  return {
    ...problem,
    errors: errors.slice(0, MAX_REPORTED_FIELD_ERRORS),
    errorsNotShown: errors.length - MAX_REPORTED_FIELD_ERRORS,
  };
}
