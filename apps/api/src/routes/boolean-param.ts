import { ValidationError } from '@odp/core';

/**
 * A boolean query parameter (`req.query[name]`): `true` or `false`, absent meaning false. Anything
 * else (`maybe`, `1`, an empty or repeated parameter) is refused with 400, so a misspelt flag is
 * never read as false without a word.
 */
export function booleanParam(raw: unknown, name: string): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ValidationError(`${name} must be true or false.`, [
    { field: name, message: 'must be true or false' },
  ]);
}
