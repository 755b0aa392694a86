import { purposeKey, seal, unseal } from './sealed.js';

const KEY = purposeKey('a-secret-key-of-the-tests', 'test-tokens');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every spelling of `text` with its last character replaced by another base64url character. */
function lastCharacterVariants(text: string): string[] {
  const last = text.at(-1);
  return [...ALPHABET].filter((c) => c !== last).map((c) => text.slice(0, -1) + c);
}

describe('sealed values', () => {
  const value = { after: ['KS-0042', 17], sort: 'legalName' };

  it('unseals what it sealed with the same key, and nothing under another key', () => {
    const token = seal(value, KEY);
    expect(unseal(token, KEY)).toEqual(value);
    expect(unseal(token, purposeKey('a-secret-key-of-the-tests', 'other-tokens'))).toBeNull();
  });

  // A 32-byte MAC is 43 base64url characters whose last one carries two unused bits: a decoder that
  // ignores them reads four spellings as the same MAC. Only the spelling seal() wrote is the token.
  it('refuses every other spelling of the signature (the last character changed)', () => {
    const token = seal(value, KEY);
    const accepted = lastCharacterVariants(token).filter((variant) => unseal(variant, KEY) !== null);
    expect(accepted).toEqual([]);
  });

  it('refuses every other spelling of the payload (its last character changed)', () => {
    const token = seal(value, KEY);
    const [payload, signature] = token.split('.') as [string, string];
    const accepted = lastCharacterVariants(payload).filter(
      (variant) => unseal(`${variant}.${signature}`, KEY) !== null,
    );
    expect(accepted).toEqual([]);
  });

  it.each([
    ['padded', (t: string) => `${t}=`],
    ['in standard base64', (t: string) => t.replace(/-/g, '+').replace(/_/g, '/')],
    ['with whitespace', (t: string) => t.replace('.', ' .')],
    ['truncated', (t: string) => t.slice(0, -1)],
    ['with a third part', (t: string) => `${t}.x`],
  ])('refuses a token %s', (_name, spell) => {
    const token = seal({ sort: '+/+/' }, KEY);
    const variant = spell(token);
    expect(variant).not.toBe(token);
    expect(unseal(variant, KEY)).toBeNull();
  });
});
