import { AppError, ConflictError, UnauthenticatedError, ValidationError } from '@odp/core';
import type { ErrorCode } from '@odp/core';
import { clientErrorOf, MAX_REPORTED_FIELD_ERRORS, problemOf, STATUS_BY_CODE } from './problem.js';

describe('problemOf', () => {
  it.each(Object.entries(STATUS_BY_CODE))('maps %s to status %i', (code, status) => {
    expect(problemOf(new AppError(code as ErrorCode, 'm')).status).toBe(status);
  });

  it('writes an RFC 9457 body with field errors and extra members', () => {
    const error = new ValidationError('Missing values.', [{ field: 'name', message: 'is required' }], {
      status: 999,
      modelStatus: { state: 'FAILED' },
    });
    expect(problemOf(error)).toEqual({
      type: 'urn:odp:problem:validation',
      title: 'Invalid request',
      status: 400,
      detail: 'Missing values.',
      errors: [{ field: 'name', message: 'is required' }],
      modelStatus: { state: 'FAILED' },
    });
    expect(problemOf(new ConflictError('Busy.'))).not.toHaveProperty('errors');
    expect(problemOf(new UnauthenticatedError()).type).toBe('urn:odp:problem:unauthenticated');
  });

  it('lists the first field errors and counts the rest', () => {
    const fieldErrors = Array.from({ length: 250 }, (_, index) => ({ field: `f${index}`, message: 'bad' }));
    const problem = problemOf(new ValidationError('Invalid values.', fieldErrors));
    expect(problem.errors).toHaveLength(MAX_REPORTED_FIELD_ERRORS);
    expect(problem.errors?.[0]).toEqual({ field: 'f0', message: 'bad' });
    expect(problem['errorsNotShown']).toBe(250 - MAX_REPORTED_FIELD_ERRORS);
    expect(problemOf(new ValidationError('x', fieldErrors.slice(0, 100)))).not.toHaveProperty(
      'errorsNotShown',
    );
  });

  it('never shows the message of an unexpected error', () => {
    const problem = problemOf(new Error('SQLITE_ERROR: no such table: secrets at /srv/odp'));
    expect(problem).toEqual({
      type: 'urn:odp:problem:internal',
      title: 'Internal error',
      status: 500,
      detail: 'The request could not be completed because of an internal error.',
    });
  });

  it('turns client errors of express layers into 400 and 413 problems, and nothing else', () => {
    const httpError = (status: number, fields: Record<string, unknown>) =>
      Object.assign(new Error('raw text'), { status, expose: status < 500, ...fields });
    const decode = Object.assign(new URIError('URI malformed'), { status: 400 });
    expect(problemOf(decode)).toMatchObject({
      status: 400,
      detail: 'A path segment is not valid percent-encoding.',
    });
    expect(problemOf(httpError(400, { code: 'Z_DATA_ERROR' }))).toMatchObject({
      status: 400,
      detail: 'The request body does not match its Content-Encoding.',
    });
    expect(problemOf(httpError(413, { type: 'entity.too.large' })).status).toBe(413);
    expect(problemOf(httpError(400, { type: 'request.aborted' })).status).toBe(400);
    expect(problemOf(httpError(415, { type: 'encoding.unsupported' })).status).toBe(400);
    expect(clientErrorOf(httpError(500, { type: 'stream.not.readable' }))).toBeUndefined();
    expect(clientErrorOf(Object.assign(new Error('x'), { status: 404 }))).toBeUndefined();
    expect(problemOf(Object.assign(new Error('x'), { status: 404 })).status).toBe(500);
  });
});
