import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';

describe('API key values', () => {
  it('generates distinct well-formed keys with their SHA-256 hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).not.toBe(b.key);
    expect(isWellFormedApiKey(a.key)).toBe(true);
    expect(a.hash).toBe(hashApiKey(a.key));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['empty', ''],
    ['no prefix', 'A'.repeat(47)],
    ['too short', `odp_${'A'.repeat(42)}`],
    ['too long', `odp_${'A'.repeat(44)}`],
    ['non-ASCII', `odp_${'é'.repeat(43)}`],
    ['whitespace', ` odp_${'A'.repeat(43)}`],
  ])('refuses a %s value before any lookup', (_name, value) => {
    expect(isWellFormedApiKey(value)).toBe(false);
  });
});
