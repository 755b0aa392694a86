import { AppError, ConflictError, UnauthenticatedError, ValidationError } from '@odp/core';
import type { ErrorCode } from '@odp/core';
import { problemOf, STATUS_BY_CODE } from './problem.js';

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

  it('never shows the message of an unexpected error', () => {
    const problem = problemOf(new Error('SQLITE_ERROR: no such table: secrets at /srv/odp'));
    expect(problem).toEqual({
      type: 'urn:odp:problem:internal',
      title: 'Internal error',
      status: 500,
      detail: 'The request could not be completed because of an internal error.',
    });
  });
});
