import { ValidationError } from '@odp/core';
import { assertJsonDepth } from './json-body.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** The error assertJsonDepth throws for `text`, or undefined. */
function depthError(text: string, limit: number): ValidationError | undefined {
  try {
    assertJsonDepth(bytes(text), limit);
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

describe('assertJsonDepth', () => {
  it('counts the body as level 1 and passes a body at the limit', () => {
    expect(depthError(nested(4), 4)).toBeUndefined();
    expect(depthError(`{"a":${nested(3)}}`, 4)).toBeUndefined();
    expect(depthError(nested(5), 4)?.message).toBe(
      'The request body nests arrays and objects deeper than 4 levels.',
    );
  });

  it('names the top-level member holding the deep value, whatever its key contains', () => {
    const error = depthError(`{"legalName":"x","we\\"ird:[key":{"b":${nested(3)}}}`, 4);
    expect(error?.fieldErrors).toEqual([
      { field: 'we"ird:[key', message: 'nests arrays and objects deeper than 4 levels' },
    ]);
  });

  it('ignores brackets, colons and escaped quotes inside strings', () => {
    const text = `{"a":"[[[[[[{{{{{{\\"]]]]:","b":["\\\\",{"c":"]]]]]]"}]}`;
    expect(depthError(text, 3)).toBeUndefined();
    expect(JSON.parse(text)).toBeDefined();
  });

  it('measures multi-byte text correctly', () => {
    expect(depthError(`{"naïve ✓":"€[[[[","x":${nested(2)}}`, 3)).toBeUndefined();
    expect(depthError(`{"naïve ✓":${nested(3)}}`, 3)?.fieldErrors[0]?.field).toBe('naïve ✓');
  });
});
