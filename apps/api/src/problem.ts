import { AppError, isAppError } from '@odp/core';
import type { ErrorCode, FieldError } from '@odp/core';

/** The one place error codes become HTTP statuses. Exhaustive: a new code fails the typecheck here. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RANGE_NOT_SATISFIABLE: 416,
  MODEL_REFUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

const TITLE_BY_CODE: Record<ErrorCode, string> = {
  VALIDATION: 'Invalid request',
  UNAUTHENTICATED: 'Unauthenticated',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  RANGE_NOT_SATISFIABLE: 'Range not satisfiable',
  MODEL_REFUSED: 'Model refused',
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

/** A generic body for anything that is not an AppError: no message, stack, SQL or driver text. */
const INTERNAL_ERROR = new AppError(
  'INTERNAL',
  'The request could not be completed because of an internal error.',
);

/** The problem body for an error; unknown errors become a generic 500. */
export function problemOf(error: unknown): Problem {
  const appError = isAppError(error) ? error : INTERNAL_ERROR;
  const problem: Problem = {
    ...appError.extra,
    type: `urn:odp:problem:${appError.code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLE_BY_CODE[appError.code],
    status: STATUS_BY_CODE[appError.code],
    detail: appError.message,
  };
  return appError.fieldErrors.length > 0 ? { ...problem, errors: appError.fieldErrors } : problem;
}
