import { routeShape } from './authentication.js';

describe('routeShape', () => {
  it.each([
    ['/data/t1/companies', 'data', { kind: 'tenant', tenantId: 't1' }],
    ['/metadata/t1/dataObject', 'metadata', { kind: 'tenant', tenantId: 't1' }],
    ['/system/t1/serviceCallLogs', 'system', { kind: 'tenant', tenantId: 't1' }],
    ['/audit/t1/access-control', 'audit', { kind: 'tenant', tenantId: 't1' }],
    ['/admin/t1', 'admin', { kind: 'tenant', tenantId: 't1' }],
    ['/scripts/t1/x', 'scripts', { kind: 'tenant', tenantId: 't1' }],
    ['/assets/t1/f', 'assets', { kind: 'tenant', tenantId: 't1' }],
    ['/tenants/t1', 'tenants', { kind: 'tenant', tenantId: 't1' }],
    ['/tenants/a%20b', 'tenants', { kind: 'tenant', tenantId: 'a b' }],
    ['/tenants/%ZZ', 'tenants', { kind: 'tenant', tenantId: '%ZZ' }],
    ['/tenants', 'tenants', { kind: 'platform' }],
    ['/tenants/', 'tenants', { kind: 'platform' }],
    ['/data', 'data', { kind: 'platform' }],
    ['/', '', { kind: 'platform' }],
    ['/unknown/t1', 'unknown', { kind: 'platform' }],
  ])('%s is branch %s, scope %j', (path, branch, scope) => {
    expect(routeShape(path)).toEqual({ branch, scope });
  });
});
