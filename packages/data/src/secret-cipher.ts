/**
 * Encryption of SECRET field values at rest (model-format section 3): AES-256-GCM with a key
 * derived from the deployment's secret key (`ODP_SECRET_KEY`), a fresh IV per value. Stored form:
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). SECRET values are never returned by the API; formulas
 * read them decrypted.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'v1';

export class SecretCipher {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = createHash('sha256').update(`odp-secret-field:${secretKey}`).digest();
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [PREFIX, iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plain value, or null when `stored` is not a value this key encrypted. */
  decrypt(stored: string): string | null {
    const [prefix, iv, tag, data] = stored.split('.');
    if (prefix !== PREFIX || iv === undefined || tag === undefined || data === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}
