import { SecretCipher } from './secret-cipher.js';

describe('SecretCipher', () => {
  const cipher = new SecretCipher('a-secret-key-of-at-least-32-characters!');

  it('round-trips with a fresh IV per value', () => {
    const first = cipher.encrypt('token');
    expect(first).not.toContain('token');
    expect(cipher.encrypt('token')).not.toBe(first);
    expect(cipher.decrypt(first)).toBe('token');
  });

  it.each([
    ['another key', new SecretCipher('another-secret-key-of-at-least-32-chars').encrypt('token')],
    ['a tampered value', `${cipher.encrypt('token').slice(0, -2)}AA`],
    ['a plain value', 'token'],
  ])('refuses %s', (_name, stored) => {
    expect(cipher.decrypt(stored)).toBeNull();
  });
});
