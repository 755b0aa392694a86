import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeBlobStoreContract } from '@odp/testkit';
import { openFsBlobStore } from './fs-blob-store.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'odp-blobs-fs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeBlobStoreContract('filesystem', () => openFsBlobStore(root));

it('leaves no temporary file behind after failed and successful puts', () => {
  expect(readdirSync(path.join(root, '.tmp'))).toEqual([]);
});
