import { AppError, NotFoundError, UnauthenticatedError, ValidationError, isAppError } from './errors.js';

describe('errors', () => {
  it('carries a stable code and field errors', () => {
    const error = new ValidationError('Missing required values.', [
      { field: 'name', message: 'is required' },
    ]);
    expect(error.code).toBe('VALIDATION');
    expect(error.fieldErrors).toEqual([{ field: 'name', message: 'is required' }]);
    expect(isAppError(error)).toBe(true);
    expect(isAppError(new Error('x'))).toBe(false);
  });

  it('gives every unauthenticated cause the same message', () => {
    expect(new UnauthenticatedError().message).toBe(new UnauthenticatedError().message);
    expect(new NotFoundError()).toBeInstanceOf(AppError);
  });
});
