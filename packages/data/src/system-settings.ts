/**
 * `systemSetting('name')` of formulas (model-format section 6): the `value` of the tenant's
 * `system.systemSetting` with that name, or else, for gateway parameters only, the decrypted
 * `system.secretValue` of that name. Field formulas never see secret values: their results are
 * stored and shown, so a secret read there would leak.
 */
import { UNRESTRICTED } from '@odp/core';
import type { StoredObject, TenantAccessRows, TenantDocuments, WriteBatch } from '@odp/core';
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
  private readonly remembered = new Map<string, StoredObject | null>();
  /** Bumped by every forgetting: a read started before one is not remembered. */
  private generation = 0;
  private seenCommits: number | undefined;

  constructor(
    private readonly store: Pick<TenantDocuments, 'list'> & Pick<TenantAccessRows, 'commitsElsewhere'>,
    private readonly maxEntries = 1_000,
  ) {}

  async find(className: string, name: string): Promise<StoredObject | null> {
    const commits = this.store.commitsElsewhere?.();
    if (commits === undefined) return namedObject(this.store, className, name);
    if (commits !== this.seenCommits) {
      this.seenCommits = commits;
      this.forget();
    }
    const key = `${className}\u0000${name}`;
    const known = this.remembered.get(key);
    if (known !== undefined) return known;
    const generation = this.generation;
    const found = await namedObject(this.store, className, name);
    if (generation === this.generation) {
      if (this.remembered.size >= this.maxEntries) this.remembered.clear();
      this.remembered.set(key, found);
    }
    return found;
  }

  /**
   * Told of every batch once its write settled (committed or failed): forgets everything when the
   * batch puts an object of either class or one remembered, or deletes anything. A read that
   * started before is not remembered; one made while the write was applied but not yet committed
   * (what the connection reads then) is forgotten here.
   */
  written(batch: WriteBatch): void {
    const ids = new Set([...this.remembered.values()].map((object) => object?.id));
    const touched =
      (batch.delete?.length ?? 0) > 0 ||
      (batch.put ?? []).some(
        (object) =>
          ids.has(object.id) ||
          object.classes.includes(SETTING_CLASS) ||
          object.classes.includes(SECRET_CLASS),
      );
    if (touched) this.forget();
  }

  private forget(): void {
    this.generation += 1;
    this.remembered.clear();
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
