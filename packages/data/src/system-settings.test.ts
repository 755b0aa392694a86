import { UNRESTRICTED } from '@odp/core';
import type { TenantDocuments } from '@odp/core';
import { openSqliteTenantStore } from '@odp/store-sqlite';
import { SYSTEM, crmFixture } from '../test/crm-fixture.js';
import type { CrmFixture } from '../test/crm-fixture.js';
import { SETTING_CLASS, NamedObjects, systemSettingReader } from './system-settings.js';

let crm: CrmFixture;
beforeEach(async () => {
  crm = await crmFixture();
});
afterEach(async () => {
  await crm.close();
});

/** The store's `list`, counting its calls (every lookup a NamedObjects makes is one). */
function countedLists(store: TenantDocuments) {
  const counted = { calls: 0, list: store.list.bind(store) };
  jest.spyOn(store, 'list').mockImplementation((plan, access) => {
    counted.calls += 1;
    return counted.list(plan, access);
  });
  return counted;
}

describe('NamedObjects: settings and secret values remembered between writes', () => {
  it('read a name from the store once while nothing is written', async () => {
    await crm.system.create(SYSTEM, 'systemSettings', { name: 'region', value: 'eu-west' });
    const lists = countedLists(crm.store);
    const setting = crm.settings.systemSetting;
    expect(await setting('region')).toBe('eu-west');
    expect(await setting('region')).toBe('eu-west');
    expect(await setting('missing')).toBeNull();
    expect(await setting('missing')).toBeNull();
    expect(lists.calls).toBe(2);
  });

  it('answer a setting changed, renamed or deleted through the services from the next read on', async () => {
    const setting = crm.settings.systemSetting;
    expect(await setting('region')).toBeNull();
    const { id } = await crm.system.create(SYSTEM, 'systemSettings', { name: 'region', value: 'eu-west' });
    expect(await setting('region')).toBe('eu-west');
    await crm.system.patch(SYSTEM, 'systemSettings', id, { value: 'us-east' });
    expect(await setting('region')).toBe('us-east');
    await crm.system.patch(SYSTEM, 'systemSettings', id, { name: 'zone' });
    expect(await setting('region')).toBeNull();
    expect(await setting('zone')).toBe('us-east');
    await crm.system.remove(SYSTEM, 'systemSettings', id);
    expect(await setting('zone')).toBeNull();
  });

  it('answer a secret value stored again under its name, decrypted', async () => {
    const secret = crm.settings.secretValue;
    await crm.system.storeSecretValue({ name: 'token', secretValue: 'first-value' });
    expect(await secret('token')).toBe('first-value');
    await crm.system.storeSecretValue({ name: 'token', secretValue: 'second-value' });
    expect(await secret('token')).toBe('second-value');
  });

  it('keep what it remembers across writes of other classes', async () => {
    await crm.system.create(SYSTEM, 'systemSettings', { name: 'region', value: 'eu-west' });
    const setting = crm.settings.systemSetting;
    expect(await setting('region')).toBe('eu-west');
    const lists = countedLists(crm.store);
    await crm.data.create(SYSTEM, 'companies', { legalName: 'Acme & Co' });
    expect(await setting('region')).toBe('eu-west');
    expect(lists.calls).toBe(0);
  });

  it('see a change another connection to the same file committed', async () => {
    const { id } = await crm.system.create(SYSTEM, 'systemSettings', { name: 'region', value: 'eu-west' });
    const setting = crm.settings.systemSetting;
    expect(await setting('region')).toBe('eu-west');
    const elsewhere = openSqliteTenantStore({ file: crm.file });
    try {
      await elsewhere.applyModel(crm.model);
      const stored = await elsewhere.get(id, UNRESTRICTED);
      expect(stored?.classes).toContain(SETTING_CLASS);
      await elsewhere.write({ put: [{ ...stored!, values: { ...stored!.values, value: 'ap-south' } }] });
    } finally {
      await elsewhere.close();
    }
    expect(await setting('region')).toBe('ap-south');
  });

  it('read the store every time when it cannot tell of other processes’ commits', async () => {
    await crm.system.create(SYSTEM, 'systemSettings', { name: 'region', value: 'eu-west' });
    let calls = 0;
    const listOnly: Pick<TenantDocuments, 'list'> = {
      list: (plan, access) => {
        calls += 1;
        return crm.store.list(plan, access);
      },
    };
    const setting = systemSettingReader(new NamedObjects(listOnly));
    expect(await setting('region')).toBe('eu-west');
    expect(await setting('region')).toBe('eu-west');
    expect(calls).toBe(2);
  });
});
