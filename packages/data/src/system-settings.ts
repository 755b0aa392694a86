/**
 * `systemSetting('name')` of formulas (model-format section 6): the `value` of the tenant's
 * `system.systemSetting` with that name, or else, for gateway parameters only, the decrypted
 * `system.secretValue` of that name. Field formulas never see secret values: their results are
 * stored and shown, so a secret read there would leak.
 */
import { RememberedReads, UNRESTRICTED } from '@odp/core';
import type { StoredObject, TenantAccessRows, TenantDocuments, WriteBatch } from '@odp/core';
import type { DataServiceDeps } from './deps.js';
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

/** How the readers below find a named object ({@link NamedObjects}). */
export interface NamedObjectFinder {
  find(className: string, name: string): Promise<StoredObject | null>;
}

/**
 * The tenant's settings and secret values by name, remembered between writes: a gateway script
 * that reads `systemSetting()` resolves it on every write that triggers it (two list queries
 * each, a setting then a secret value of the same name). What is remembered is forgotten when a
 * write may change it ({@link written}, told of every batch of this process) and when another
 * process has committed since (the store's `commitsElsewhere`). A store that cannot tell of other
 * processes' commits (MongoDB) is read every time: nothing is remembered.
 */
export class NamedObjects implements NamedObjectFinder {
  private readonly reads: RememberedReads<StoredObject | null> | undefined;

  constructor(
    private readonly store: Pick<TenantDocuments, 'list'> & Pick<TenantAccessRows, 'commitsElsewhere'>,
    maxEntries = 1_000,
  ) {
    const { commitsElsewhere } = store;
    this.reads = commitsElsewhere && new RememberedReads(() => commitsElsewhere.call(store), maxEntries);
  }

  find(className: string, name: string): Promise<StoredObject | null> {
    const load = () => namedObject(this.store, className, name);
    return this.reads ? this.reads.read(`${className}\u0000${name}`, load) : load();
  }

  /**
   * Told of every batch once its write settled (committed or failed): forgets everything when the
   * batch puts an object of either class or one remembered, or deletes anything. A read that
   * started before is not remembered; one made while the write was applied but not yet committed
   * (what the connection reads then) is forgotten here.
   */
  written(batch: WriteBatch): void {
    const touched =
      (batch.delete?.length ?? 0) > 0 ||
      (batch.put ?? []).some(
        (object) =>
          object.classes.includes(SETTING_CLASS) ||
          object.classes.includes(SECRET_CLASS) ||
          this.reads?.holds((remembered) => remembered?.id === object.id),
      );
    if (touched) this.reads?.forget();
  }
}

/** Plain settings: what every formula's `systemSetting()` reads. */
export function systemSettingReader(objects: NamedObjectFinder): (name: string) => Promise<string | null> {
  return async (name) => {
    const value = (await objects.find(SETTING_CLASS, name))?.values['value'];
    return typeof value === 'string' ? value : null;
  };
}

/**
 * Secret values, decrypted: what `systemSetting()` falls back to in gateway parameters. Null when
 * there is none, or when it cannot be decrypted (stored under another `ODP_SECRET_KEY`).
 */
export function secretValueReader(
  objects: NamedObjectFinder,
  cipher: SecretCipher | undefined,
): (name: string) => Promise<string | null> {
  return async (name) => {
    const stored = (await objects.find(SECRET_CLASS, name))?.values['secretValue'];
    if (typeof stored !== 'string') return null;
    return cipher ? cipher.decrypt(stored) : stored;
  };
}

/**
 * The settings a tenant's data services read, wired as every composition wires them: both readers
 * over one {@link NamedObjects}, told of every batch this process writes.
 */
export function rememberedSettings(
  store: ConstructorParameters<typeof NamedObjects>[0],
  cipher: SecretCipher | undefined,
): Required<Pick<DataServiceDeps, 'systemSetting' | 'secretValue' | 'written'>> {
  const objects = new NamedObjects(store);
  return {
    systemSetting: systemSettingReader(objects),
    secretValue: secretValueReader(objects, cipher),
    written: (batch) => objects.written(batch),
  };
}
