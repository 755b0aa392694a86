/**
 * `systemSetting('name')` of formulas: the `value` of the tenant's `system.systemSetting` object
 * with that name (names are unique), or null. Secret values (`system.secretValue`) are not read
 * here yet: they resolve for gateways only, once stored secrets arrive.
 */
import { UNRESTRICTED } from '@odp/core';
import type { TenantStore } from '@odp/core';

const SETTING_CLASS = 'system.systemSetting';

export function systemSettingReader(
  store: Pick<TenantStore, 'list'>,
): (name: string) => Promise<string | null> {
  return async (name) => {
    const rows = await store.list(
      {
        className: SETTING_CLASS,
        filters: [{ kind: 'equals', field: 'name', type: 'TEXT', value: name }],
        page: 0,
        size: 10,
      },
      UNRESTRICTED,
    );
    // The filter compares case-insensitively; a setting name is matched exactly.
    const value = rows.find((row) => row.values['name'] === name)?.values['value'];
    return typeof value === 'string' ? value : null;
  };
}
