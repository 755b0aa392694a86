import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';

/** Name of the file inside the data directory that holds the generated `ODP_SECRET_KEY`. */
export const SECRET_KEY_FILE = 'secret.key';
const MIN_SECRET_KEY_LENGTH = 32;

/**
 * `ODP_SECRET_KEY`, or when absent the key in `<dataDir>/secret.key`, generated there (mode 0600) on
 * first start, creating the data directory.
 */
export function resolveSecretKey(fromEnv: string | null, dataDir: string): string {
  if (fromEnv !== null) {
    if (fromEnv.length < MIN_SECRET_KEY_LENGTH) {
      throw new ConfigError('ODP_SECRET_KEY', `must be at least ${MIN_SECRET_KEY_LENGTH} characters long`);
    }
    return fromEnv;
  }
  const file = path.join(dataDir, SECRET_KEY_FILE);
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!isNodeError(error, 'EEXIST')) {
      throw new ConfigError('ODP_DATA_DIR', `cannot create the secret key file in ${dataDir}`);
    }
  }
  const stored = readFileSync(file, 'utf8').trim();
  if (stored.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      'ODP_SECRET_KEY',
      `the key in ${file} is shorter than ${MIN_SECRET_KEY_LENGTH} characters`,
    );
  }
  return stored;
}

function isNodeError(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
