import { ForbiddenError } from '@odp/core';
import type { Account, TenantRole } from '@odp/core';
import { assertRoleAllows } from './roles.js';

const user = (role: TenantRole): Account => ({
  kind: 'user',
  tenantId: 't',
  profileId: 'p',
  role,
  extraRoles: [],
  objectId: null,
  email: 'e',
});
const system: Account = { kind: 'system', tenantId: 't' };

/** The Roles table of the interface spec, one row per (account, method, branch). */
describe('assertRoleAllows', () => {
  it.each<[string, Account, string, string, boolean]>([
    ['admin reads data', user('admin'), 'GET', 'data', true],
    ['admin writes data', user('admin'), 'DELETE', 'data', true],
    ['admin uses /admin', user('admin'), 'POST', 'admin', true],
    ['admin uses /system', user('admin'), 'GET', 'system', true],
    ['admin uses /audit', user('admin'), 'GET', 'audit', true],
    ['member writes data', user('member'), 'PATCH', 'data', true],
    ['member refused /admin', user('member'), 'GET', 'admin', false],
    ['member refused /system', user('member'), 'GET', 'system', false],
    ['member refused /audit', user('member'), 'GET', 'audit', false],
    ['viewer reads data', user('viewer'), 'GET', 'data', true],
    ['viewer refused POST', user('viewer'), 'POST', 'data', false],
    ['viewer refused PATCH', user('viewer'), 'patch', 'data', false],
    ['viewer refused DELETE', user('viewer'), 'DELETE', 'data', false],
    ['viewer refused /audit', user('viewer'), 'GET', 'audit', false],
    ['system key uses /admin', system, 'DELETE', 'admin', true],
    ['system key writes data', system, 'POST', 'data', true],
  ])('%s', (_name, account, method, branch, allowed) => {
    const check = () => assertRoleAllows(account, method, branch);
    if (allowed) expect(check).not.toThrow();
    else expect(check).toThrow(ForbiddenError);
  });
});
