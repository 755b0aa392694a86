import { isEventStream, readsSelection, requestKind } from './request-kind.js';

describe('readsSelection', () => {
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
    ['GET', '/data/t/excel/companies', true],
    ['GET', '/data/t/excel/companies/c1/invoices', true],
    ['GET', '/data/t/import/i1', false],
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
    expect(readsSelection(method, path)).toBe(expected);
  });
});

describe('requestKind', () => {
  it('names the method, branch, shape and body size class', () => {
    expect(requestKind('GET', '/data/t/companies/c1', 0).label).toBe('GET /data');
    expect(requestKind('GET', '/data/t/companies', 0).label).toBe('GET /data selection');
    expect(requestKind('GET', '/metadata/t/dataObject', Number.NaN).label).toBe('GET /metadata');
    expect(requestKind('POST', '/data/t/companies', 300).label).toBe('POST /data body<1KB');
    expect(requestKind('POST', '/data/t/companies', 1_048_576).label).toBe('POST /data body<1024KB');
    expect(requestKind('POST', '/data/t/companies', 1_048_577).label).toBe('POST /data body<2048KB');
  });

  it('expects a selection and a large body to cost more before one was measured', () => {
    const one = requestKind('GET', '/data/t/companies/c1', 0).priorMs;
    const selection = requestKind('GET', '/data/t/companies', 0).priorMs;
    const small = requestKind('POST', '/data/t/companies', 300).priorMs;
    const large = requestKind('POST', '/data/t/companies', 1_048_576).priorMs;
    expect(selection).toBeGreaterThan(one);
    expect(large).toBeGreaterThan(small + 10);
  });
});

describe('isEventStream', () => {
  it.each([
    ['GET', '/data/t/eventStream', true],
    ['GET', '/data/t/eventStream/', true],
    ['POST', '/data/t/eventStream', false],
    ['GET', '/data/t/eventStream/x', false],
    ['GET', '/data/t/companies', false],
    ['GET', '/system/t/eventStream', false],
  ])('%s %s -> %s', (method, path, expected) => {
    expect(isEventStream(method, path)).toBe(expected);
  });
});
