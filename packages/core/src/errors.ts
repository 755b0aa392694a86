/**
 * The platform's error hierarchy. Every failure that reaches a caller carries one stable `code`;
 * the api maps codes to HTTP statuses in exactly one place. Messages are safe to show to clients:
 * never put SQL, stack traces, driver errors or credential values into them.
 */

export type ErrorCode =
  | 'VALIDATION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'NO_ROUTE'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'PAYLOAD_TOO_LARGE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'MODEL_REFUSED'
  | 'REPORT_FAILED'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** One problem with one input field, as listed in a problem body's `errors`. */
export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors: readonly FieldError[] = [],
    /** Extra members for the problem body (e.g. a model status); must be client-safe. */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(message: string, fieldErrors: readonly FieldError[] = [], extra?: Record<string, unknown>) {
    super('VALIDATION', message, fieldErrors, extra);
  }
}

export class UnauthenticatedError extends AppError {
  /** One message for every cause, so a response never tells which check failed. */
  constructor() {
    super('UNAUTHENTICATED', 'A valid credential for this route is required.');
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'This account may not perform this request.') {
    super('FORBIDDEN', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super('NOT_FOUND', message);
  }
}

/**
 * The api has no route for the request's method and path (as opposed to a route that found no
 * class or object): its own code, so a client or a test tells a wrong address from a missing object.
 */
export class NoRouteError extends AppError {
  constructor() {
    super('NO_ROUTE', 'No such route.');
  }
}

export class ConflictError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super('CONFLICT', message, [], extra);
  }
}

/**
 * A conditional write's `If-Match` names a version the object no longer has (HTTP 412): another
 * write changed it since the client read it, so nothing was written. `etag` is the current version.
 */
export class PreconditionFailedError extends AppError {
  constructor(etag: string) {
    super(
      'PRECONDITION_FAILED',
      'The object changed since the version named by If-Match; nothing was written.',
      [],
      {
        etag,
      },
    );
  }
}

/**
 * A write's precondition failed: an object the unit of work read changed (or appeared, or went)
 * before the write was applied, so nothing was written. The object service re-runs the unit of
 * work on the current state; if that keeps failing, it surfaces as a 409.
 */
export class WriteConflictError extends ConflictError {
  constructor(readonly objectId: string) {
    super('The object changed while this write was applied; try again.');
  }
}

/**
 * A store write's idempotency record (`WriteBatch.idempotency`) names a key an unexpired record of
 * the same account already holds: another request with that key was written first, so nothing of
 * this batch was. The caller answers with that record (or IdempotencyKeyReusedError).
 */
export class IdempotencyKeyTakenError extends ConflictError {
  constructor() {
    super('Another request with this Idempotency-Key was written first; try again.');
  }
}

/**
 * An `Idempotency-Key` the account already used, within its lifetime, for a request with another
 * method, path or body (HTTP 422): the key names one request, so this one is not run.
 */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used for a different request (method, path or body); use a new key.',
    );
  }
}

/**
 * Too many requests right now (HTTP 429); the client should retry after `retryAfterSeconds`,
 * which the api sends as `Retry-After`.
 */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message, [], { retryAfter: retryAfterSeconds });
  }
}

/**
 * A request refused because its tenant already uses its whole share of the api: requests,
 * renderings, imports or event streams under way (HTTP 429, `Retry-After`). The api answers it
 * after a short hold (docs/configuration.md, "Fair share between tenants"), unlike the limit of
 * an external service, which is the tenant's own to spend.
 */
export class TenantShareError extends RateLimitedError {}

/** Why a report document could not be rendered: over its memory or time limit, or its template failed. */
export type ReportFailure = 'memory' | 'time' | 'template';

/**
 * A report document that could not be rendered (HTTP 422): its rendering needed more memory or time
 * than a report may take (`ODP_REPORT_MEMORY_MB`, `ODP_REPORT_TIMEOUT_MS`), or the template failed
 * on the object. Retrying the same object does not help; `reason` says which it was.
 */
export class ReportFailedError extends AppError {
  constructor(
    readonly reason: ReportFailure,
    message: string,
  ) {
    super('REPORT_FAILED', message, [], { reason });
  }
}

export class UnavailableError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super('UNAVAILABLE', message, [], extra);
  }
}

/**
 * The tenant's runtime is being changed (closed by a deletion or an announcement, or its model
 * being applied): the same request shortly after succeeds (HTTP 503).
 */
export class TenantChangingError extends UnavailableError {}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
