/**
 * A program that uses the platform's packages from npm, with plain node (compiled by `tsc`):
 *
 * 1. the building blocks on a model directory: load it (`@odp/model-loader`), evaluate a formula
 *    (`@odp/formulas`), parse a list query (`@odp/query-engine`), derive an access filter (`@odp/acl`);
 * 2. the whole platform embedded (`@odp/platform`): opened from a configuration object, a tenant
 *    created from the model, an object written and read through the object service, and the HTTP api
 *    (`@odp/api`) mounted under `/odp` of the program's own express application.
 *
 * Usage: node dist/main.js <model directory> (default: ../models/crm). Prints one line per step and
 * `embedding example: ok` at the end; exits 1 on the first step that fails.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { TenantAccessControl } from '@odp/acl';
import { createApp } from '@odp/api';
import type { Model } from '@odp/core';
import { evaluate, parseFormula } from '@odp/formulas';
import { loadModelRepository } from '@odp/model-loader';
import { createTenant, objectService, openEmbeddedPlatform, systemAccount } from '@odp/platform';
import { parseListQuery } from '@odp/query-engine';
import { openSqliteTenantStore } from '@odp/store-sqlite';

const modelDir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../../models/crm'));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'odp-embedding-'));
const step = (line: string) => process.stdout.write(`${line}\n`);

async function buildingBlocks(): Promise<void> {
  const loaded = await loadModelRepository(modelDir);
  assert.ok(loaded.model, `the model does not load: ${JSON.stringify(loaded.issues.slice(0, 3))}`);
  const model: Model = loaded.model;
  step(`model-loader: ${model.classes.size} classes`);

  const fields: Record<string, unknown> = { legalName: 'acme', employeeCount: 21 };
  const record = { get: (name: string) => fields[name], follow: async () => undefined };
  const value = await evaluate(parseFormula('concat(upper(legalName), ": ", round(employeeCount * 2))'), {
    record,
  });
  assert.equal(value, 'ACME: 42');
  step(`formulas: ${String(value)}`);

  const plan = parseListQuery(
    model,
    'crm.company',
    new URLSearchParams('legalName=Acme&sort=legalName,desc'),
  );
  assert.equal(plan.filters.length, 1);
  step(`query-engine: ${plan.filters.length} filter on ${plan.className}`);

  const store = openSqliteTenantStore({ file: path.join(scratch, 'acl.sqlite') });
  try {
    const acl = new TenantAccessControl(model, 'example-tenant', store);
    const filter = await acl.policy.accessFilter({
      kind: 'user',
      tenantId: 'example-tenant',
      profileId: 'p1',
      role: 'viewer',
      extraRoles: [],
      objectId: null,
      email: 'viewer@example.org',
    });
    assert.equal(filter.kind, 'acl');
    step(
      `acl: a viewer's filter protects ${filter.kind === 'acl' ? filter.protectedClasses.length : 0} classes`,
    );
  } finally {
    await store.close();
  }
}

async function embeddedPlatform(): Promise<void> {
  const quiet = { info: () => undefined, error: () => undefined, flush: () => undefined };
  const platform = await openEmbeddedPlatform({ dataDir: path.join(scratch, 'odp'), log: quiet });
  try {
    const { tenant, systemKey } = await createTenant(platform, { name: 'Example', modelDir });
    const account = systemAccount(tenant.id);
    const objects = await objectService(platform, account);
    const { id, href } = await objects.create(account, 'companies', { legalName: 'Embedded Co' });
    assert.match(JSON.stringify(await objects.getOne(account, 'companies', id)), /Embedded Co/);
    step(`platform: wrote and read ${href}`);

    const host = express();
    host.use('/odp', createApp(platform));
    const server = host.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/odp/data/${tenant.id}/companies/${id}`, {
        headers: { 'X-API-Key': systemKey },
      });
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as { legalName?: string };
      assert.equal(body.legalName, 'Embedded Co');
      step(`api: GET /odp/data/{tenant}/companies/{id} answered ${answer.status}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  } finally {
    await platform.close();
  }
}

try {
  await buildingBlocks();
  await embeddedPlatform();
  step('embedding example: ok');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
