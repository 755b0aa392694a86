/**
 * `systemSetting('name')` of formulas (model-format section 6): the `value` of the tenant's
 * `system.systemSetting` with that name, or else, for gateway parameters only, the decrypted
 * `system.secretValue` of that name. Field formulas never see secret values: their results are
 * stored and shown, so a secret read there would leak.
 */
import { UNRESTRICTED } from '@odp/core';
import type { StoredObject, TenantDocuments } from '@odp/core';
import type { SecretCipher } from './secret-cipher.js';

export const SETTING_CLASS = 'system.systemSetting';
export const SECRET_CLASS = 'system.secretValue';

/** The object of class `className` whose `name` is exactly `name` (names are unique). */
export async function namedObject(
  store: Pick<TenantDocuments, 'list'>,
  className: string,
  name: string,
): Promise<StoredObject | null> {
  const rows = await store.list(
    { className, filters: [{ kind: 'equals', field: 'name', type: 'TEXT', value: name }], page: 0, size: 10 },
    UNRESTRICTED,
  );
  // The filter compares case-insensitively; a setting name is matched exactly.
  return rows.find((row) => row.values['name'] === name) ?? null;
}

/** Plain settings: what every formula's `systemSetting()` reads. */
export function systemSettingReader(
  store: Pick<TenantDocuments, 'list'>,
): (name: string) => Promise<string | null> {
  return async (name) => {
    const value = (await namedObject(store, SETTING_CLASS, name))?.values['value'];
    return typeof value === 'string' ? value : null;
  };
}

/**
 * Secret values, decrypted: what `systemSetting()` falls back to in gateway parameters. Null when
 * there is none, or when it cannot be decrypted (stored under another `ODP_SECRET_KEY`).
 */
export function secretValueReader(
  store: Pick<TenantDocuments, 'list'>,
  cipher: SecretCipher | undefined,
): (name: string) => Promise<string | null> {
  return async (name) => {
    const stored = (await namedObject(store, SECRET_CLASS, name))?.values['secretValue'];
    if (typeof stored !== 'string') return null;
    return cipher ? cipher.decrypt(stored) : stored;
  };
}
