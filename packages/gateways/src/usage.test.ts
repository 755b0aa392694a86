import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimitedError } from '@odp/core';
import { SqliteWindowCounters } from '@odp/store-sqlite';
import { GatewayError } from './gateway.js';
import { ServiceLimitError, ServiceUsage, costLocal, windowOf } from './usage.js';
import type { ServiceCallRecord, ServiceLimit } from './usage.js';

const T = 'd0d0d0d0-0000-4000-8000-000000000001';
const OTHER = 'd0d0d0d0-0000-4000-8000-000000000002';
let dir: string;
let counters: SqliteWindowCounters;
let clock: Date;
let written: { tenantId: string; record: ServiceCallRecord }[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'odp-usage-'));
  counters = new SqliteWindowCounters(join(dir, 'counters.sqlite'));
  clock = new Date('2030-01-01T10:59:00.000Z');
  written = [];
});
afterEach(async () => {
  await counters.close();
  rmSync(dir, { recursive: true, force: true });
});

function usage(
  limits: Record<string, ServiceLimit>,
  exchangeRates: Record<string, number> = {},
): ServiceUsage {
  return new ServiceUsage({
    counters,
    limits,
    exchangeRates,
    now: () => clock,
    write: async (tenantId, record) => {
      written.push({ tenantId, record });
    },
  });
}

const limit = (calls: number, window: 'HOURS' | 'DAYS' = 'HOURS', units: number | null = null) => ({
  calls,
  window,
  units,
  budgetEur: null,
});

it('writes one record per call with the tariff cost and costLocal from the exchange rate', async () => {
  const meter = usage({}, { USD: 1.25 });
  expect(
    await meter.call(
      T,
      'document-conversion',
      '/data/t/documents/1',
      async () => 'md',
      () => ({ units: 12 }),
    ),
  ).toBe('md');
  await meter.call(T, 'address-enrichment', '/data/t/companies/2', async () => null);
  await meter.call(
    T,
    'ai-model',
    null,
    async () => null,
    () => ({ units: 1500, cost: 0.5 }),
  );
  expect(written.map((entry) => entry.record)).toEqual([
    {
      service: 'document-conversion',
      timestamp: '2030-01-01T10:59:00.000Z',
      success: true,
      costUnits: 12,
      costUnit: 'pages',
      cost: 0.12,
      costLocal: 0.096,
      reference: '/data/t/documents/1',
    },
    expect.objectContaining({
      service: 'address-enrichment',
      cost: 0.0707,
      costLocal: 0.0707,
      costUnits: null,
    }),
    expect.objectContaining({
      service: 'ai-model',
      costUnits: 1500,
      costUnit: 'tokens',
      cost: 0.5,
      costLocal: 0.4,
    }),
  ]);
  expect(written.every((entry) => entry.tenantId === T)).toBe(true);
});

it('leaves costLocal null without a rate for the currency; EUR needs none', () => {
  expect(costLocal(1, 'USD', {})).toBeNull();
  expect(costLocal(2.5, 'EUR', {})).toBe(2.5);
  expect(costLocal(null, 'EUR', {})).toBeNull();
  expect(costLocal(1.08, 'USD', { USD: 1.08 })).toBe(1);
});

it('logs a failed call as unsuccessful and passes its error on', async () => {
  const meter = usage({ webhook: limit(5) });
  const failure = new GatewayError('The webhook answered HTTP 503.', true);
  await expect(meter.call(T, 'webhook', '/data/t/invoices/1', () => Promise.reject(failure))).rejects.toBe(
    failure,
  );
  expect(written.map((entry) => entry.record)).toEqual([
    expect.objectContaining({ service: 'webhook', success: false, cost: 0, costLocal: 0 }),
  ]);
});

it('refuses the call past `calls` in the window (429 until the hour rolls over), per tenant', async () => {
  const meter = usage({ webhook: limit(2) });
  let calls = 0;
  const call = (tenant = T) => meter.call(tenant, 'webhook', null, async () => ++calls);
  await call();
  await call();
  await expect(meter.assertWithinLimit(T, 'webhook')).rejects.toBeInstanceOf(ServiceLimitError);
  const refused = await call().catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(RateLimitedError);
  expect((refused as ServiceLimitError).retryAfterSeconds).toBe(60);
  expect((refused as Error).message).toBe(
    'The rate limit of the service webhook is reached (2 calls per hour); it resets at 2030-01-01T11:00:00.000Z.',
  );
  expect(calls).toBe(2);
  expect(written).toHaveLength(2);
  await call(OTHER);
  await meter.assertWithinLimit(OTHER, 'webhook');
  clock = new Date('2030-01-01T11:00:00.000Z');
  await meter.assertWithinLimit(T, 'webhook');
  await call();
  expect(calls).toBe(4);
});

it('counts failed calls too: they were made', async () => {
  const meter = usage({ mail: limit(1, 'DAYS') });
  await expect(meter.call(T, 'mail', null, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  await expect(meter.call(T, 'mail', null, async () => 1)).rejects.toBeInstanceOf(ServiceLimitError);
});

it('blocks further calls once the window units are reached, independently of calls', async () => {
  const meter = usage({ 'ai-model': limit(100, 'DAYS', 1000) });
  const tokens = (units: number) =>
    meter.call(
      T,
      'ai-model',
      null,
      async () => null,
      () => ({ units }),
    );
  await tokens(600);
  await tokens(600);
  const refused = await tokens(1).catch((error: unknown) => error);
  expect((refused as Error).message).toContain('1000 units per day');
  await expect(meter.assertWithinLimit(T, 'ai-model')).rejects.toBeInstanceOf(ServiceLimitError);
  clock = new Date('2030-01-02T00:00:00.000Z');
  await tokens(10);
  expect(written).toHaveLength(3);
});

it('does not limit a service without an entry', async () => {
  const meter = usage({ webhook: limit(1) });
  for (let i = 0; i < 5; i++) await meter.call(T, 'mail', null, async () => i);
  await meter.assertWithinLimit(T, 'mail');
  expect(written).toHaveLength(5);
});

it('aligns windows to the UTC hour and day', () => {
  const now = new Date('2030-05-06T13:45:12.345Z');
  expect(windowOf('HOURS', now)).toEqual({
    start: new Date('2030-05-06T13:00:00.000Z'),
    end: new Date('2030-05-06T14:00:00.000Z'),
  });
  expect(windowOf('DAYS', now)).toEqual({
    start: new Date('2030-05-06T00:00:00.000Z'),
    end: new Date('2030-05-07T00:00:00.000Z'),
  });
});
