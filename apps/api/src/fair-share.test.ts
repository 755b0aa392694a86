import { EventEmitter } from 'node:events';
import type { Request, RequestHandler, Response } from 'express';
import { RateLimitedError } from '@odp/core';
import { isExpensive, tenantFairShare } from './fair-share.js';

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
    expect(isExpensive(method, path)).toBe(expected);
  });
});

describe('tenantFairShare', () => {
  let clock = 0;
  const started: string[] = [];
  const responses = new Map<string, EventEmitter>();
  let middleware: RequestHandler;

  /** Sends request `name` of `tenant` (an expensive list unless `path` says otherwise). */
  function send(name: string, tenant: string, path = `/data/${tenant}/companies`): void {
    const res = Object.assign(new EventEmitter(), {
      locals: { authentication: { kind: 'tenant', tenantId: tenant } },
    });
    responses.set(name, res);
    const req = { method: 'GET', path };
    middleware(req as Request, res as unknown as Response, () => started.push(name));
  }
  /** Finishes request `name` after it ran `ms` milliseconds. */
  function finish(name: string, ms = 0): void {
    clock += ms;
    responses.get(name)?.emit('close');
  }

  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
    started.length = 0;
    responses.clear();
    middleware = tenantFairShare(2, () => clock);
  });
  afterEach(() => jest.useRealTimers());

  it('admits up to the limit per tenant, then refuses with RateLimitedError (Retry-After 1 s)', () => {
    send('a1', 'A');
    send('a2', 'A');
    let refused: unknown;
    try {
      send('a3', 'A');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(1);
    send('b1', 'B');
    jest.runOnlyPendingTimers();
    finish('a1');
    send('a4', 'A');
    expect(responses.has('a4')).toBe(true);
  });

  it('runs expensive requests one at a time, after pending I/O, and never holds back cheap ones', () => {
    send('a1', 'A');
    send('a2', 'A');
    send('cheap', 'A', '/data/A/companies/c1');
    expect(started).toEqual(['cheap']);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['cheap', 'a1']);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['cheap', 'a1']);
    finish('a1');
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['cheap', 'a1', 'a2']);
  });

  it('takes turns across tenants: a tenant that just ran goes after one that arrived since', () => {
    send('a1', 'A');
    send('a2', 'A');
    jest.runOnlyPendingTimers();
    send('b1', 'B');
    send('b2', 'B');
    finish('a1');
    jest.runAllTimers();
    finish('b1');
    jest.runAllTimers();
    finish('a2');
    jest.runAllTimers();
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('pauses as long as the last one ran while another tenant is active; not when alone', () => {
    send('a1', 'A');
    send('a2', 'A');
    jest.runOnlyPendingTimers();
    finish('a1', 40);
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a1', 'a2']);

    send('a3', 'A');
    send('cheap-b', 'B', '/data/B/companies/c1');
    finish('a2', 50);
    jest.advanceTimersByTime(49);
    expect(started).toEqual(['a1', 'a2', 'cheap-b']);
    jest.advanceTimersByTime(1);
    expect(started).toEqual(['a1', 'a2', 'cheap-b', 'a3']);
  });

  it('forgets a request whose client went away while it waited', () => {
    send('a1', 'A');
    send('a2', 'A');
    jest.runOnlyPendingTimers();
    finish('a2');
    finish('a1');
    jest.runAllTimers();
    expect(started).toEqual(['a1']);
    send('a3', 'A');
    send('a4', 'A');
    jest.runOnlyPendingTimers();
    expect(started).toEqual(['a1', 'a3']);
  });
});
