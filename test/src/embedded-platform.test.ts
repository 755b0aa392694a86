/**
 * The platform embedded in a program (`@odp/platform`'s programmatic API, docs/embedding.md): opened
 * from a configuration object, a tenant created from the example model, an object written and read
 * through the object service, and the HTTP api mounted under a path of the program's own express
 * application, which serves the same object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { createApp } from '@odp/api';
import { createTenant, objectService, openEmbeddedPlatform, systemAccount } from '@odp/platform';
import type { Platform } from '@odp/platform';
import { REPO_ROOT } from './support/server.js';

describe('the embedded platform', () => {
  let dataDir: string;
  let platform: Platform;
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'odp-embedded-'));
    platform = await openEmbeddedPlatform({
      dataDir,
      log: { info: () => {}, error: () => {}, flush: () => {} },
    });
    const host = express();
    host.get('/', (_req, res) => void res.send('the host application'));
    host.use('/odp', createApp(platform));
    server = host.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes and reads an object through the object service, and serves it through the mounted api', async () => {
    const { tenant, systemKey } = await createTenant(platform, {
      name: 'Embedded',
      modelDir: path.join(REPO_ROOT, 'examples/models/crm'),
    });
    const account = systemAccount(tenant.id);
    const objects = await objectService(platform, account);
    const { id, href } = await objects.create(account, 'companies', { legalName: 'Embedded Co' });
    expect(href).toBe(`/data/${tenant.id}/companies/${id}`);
    const read = await objects.getOne(account, 'companies', id);
    expect(JSON.stringify(read)).toContain('Embedded Co');

    const answer = await fetch(`${baseUrl}/odp/data/${tenant.id}/companies/${id}`, {
      headers: { 'X-API-Key': systemKey },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ legalName: 'Embedded Co' });
    const refused = await fetch(`${baseUrl}/odp/data/${tenant.id}/companies/${id}`);
    expect(refused.status).toBe(401);
    expect(await (await fetch(`${baseUrl}/`)).text()).toBe('the host application');
  });

  it('refuses an unknown configuration variable with a ConfigError naming it', async () => {
    await expect(openEmbeddedPlatform({ dataDir, variables: { ODP_NO_SUCH_THING: '1' } })).rejects.toThrow(
      /ODP_NO_SUCH_THING/,
    );
  });
});
