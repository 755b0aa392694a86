/**
 * Fail closed on a changed `ODP_SECRET_KEY`. Secret values, SECRET fields and sealed job parameters
 * are encrypted at rest with a key derived from it; a process started with another key would read
 * them all as null (webhooks sent without their secret parameters) while looking healthy. So the
 * registry keeps a known text encrypted under the deployment's key, written on the first start, and
 * every start decrypts it first: a key that cannot is a start-up error naming the variable.
 * A deliberate rotation is acknowledged with `odp secret-key accept` (docs/worker.md).
 */
import { ConfigError } from '@odp/config';
import type { PlatformRegistry } from '@odp/core';
import { SecretCipher } from '@odp/data';

/** The registry setting holding the check text encrypted under the deployment's secret key. */
const CHECK_SETTING = 'secret-key-check';
const CHECK_TEXT = 'odp secret key check v1';

/** Records `secretKey` as the deployment's key (first start, or an accepted rotation). */
export async function acceptSecretKey(registry: PlatformRegistry, secretKey: string): Promise<void> {
  await registry.setSetting(CHECK_SETTING, new SecretCipher(secretKey).encrypt(CHECK_TEXT));
}

/**
 * Resolves when `secretKey` is the key the deployment's secrets were stored with (recording it when
 * none was recorded yet); throws a ConfigError naming `ODP_SECRET_KEY` otherwise.
 */
export async function verifySecretKey(registry: PlatformRegistry, secretKey: string): Promise<void> {
  const stored = await registry.getSetting(CHECK_SETTING);
  if (stored === null) return acceptSecretKey(registry, secretKey);
  if (new SecretCipher(secretKey).decrypt(stored) === CHECK_TEXT) return;
  throw new ConfigError(
    'ODP_SECRET_KEY',
    'is not the key the stored secrets were encrypted with (start with that key, or see "Rotation of ODP_SECRET_KEY" in docs/worker.md)',
  );
}
