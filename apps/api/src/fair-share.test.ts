import { isExpensive } from './fair-share.js';

describe('isExpensive', () => {
  it.each([
    ['GET', '/data/t/companies', true],
    ['GET', '/data/t/companies/', true],
    ['GET', '/DATA/t/companies', true],
    ['GET', '/data/t/companies/distinct', true],
    ['GET', '/data/t/companies/aggregations', true],
    ['GET', '/data/t/companies/values/legalName', true],
    ['GET', '/data/t/companies/c1/invoices', true],
    ['GET', '/data/t/companies/c1/invoices/distinct', true],
    ['GET', '/data/t/companies/c1/invoices/values/amount', true],
    ['GET', '/data/t/search', true],
    ['HEAD', '/data/t/companies', true],
    ['GET', '/audit/t/access-control', true],
    ['GET', '/audit/t/companies/c1/access', true],
    ['GET', '/system/t/serviceCallLogs', true],
    ['GET', '/system/t/serviceCallLogs/aggregations', true],
    ['GET', '/data/t/companies/c1', false],
    ['GET', '/data/t/persons/own', false],
    ['GET', '/data/t/companies/capabilities', false],
    ['GET', '/data/t/companies/c1/capabilities', false],
    ['GET', '/data/t/companies/c1/invoices/capabilities', false],
    ['GET', '/data/t/eventStream', false],
    ['GET', '/system/t/serviceCallLogs/s1', false],
    ['POST', '/data/t/companies', false],
    ['PATCH', '/data/t/companies/c1', false],
    ['GET', '/metadata/t/dataObject', false],
    ['GET', '/admin/t/modelStatus', false],
    ['GET', '/tenants', false],
    ['GET', '/data/t', false],
  ])('%s %s -> %s', (method, path, expected) => {
    expect(isExpensive(method, path)).toBe(expected);
  });
});
