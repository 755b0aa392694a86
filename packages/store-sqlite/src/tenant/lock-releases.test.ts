import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Listeners } from '@odp/core';
import type { LockReleases } from '@odp/core';
import { TenantDatabase } from './database.js';
import { metaValue, putMeta } from '../../test/two-connections.js';

/**
 * A write waiting for the lock another process holds tries again as soon as that process
 * announces its commit (`LockReleases`; between api processes the cluster's hub carries the
 * announcements, platform's cluster-coordination.test.ts). Here both connections are in this
 * process and share an in-process channel standing in for the hub.
 */
function inProcessLockReleases(): LockReleases & { readonly announced: string[] } {
  const listeners = new Listeners<void>();
  const announced: string[] = [];
  return {
    announced,
    announce(file) {
      announced.push(file);
      listeners.emit(file, undefined);
    },
    listen(file, listener) {
      const unsubscribe = listeners.add(file, listener);
      return () => void unsubscribe();
    },
  };
}

describe('lock releases announced between processes (SQLite, two connections)', () => {
  let dir = '';
  let file = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odp-lock-releases-'));
    file = path.join(dir, 'documents.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('announces each commit, and a waiting write takes the lock at once, before any pause of its own ends', async () => {
    const releases = inProcessLockReleases();
    const writer = new TenantDatabase(file, { lockReleases: releases });
    const other = new TenantDatabase(file, { lockReleases: releases });
    let write: Promise<unknown> | undefined;
    try {
      other.db.exec('BEGIN IMMEDIATE');
      putMeta(other, 'a', 'other')();
      let applied = false;
      const applying = writer.applyInGroup(putMeta(writer, 'a', 'writer')).then((result) => {
        applied = true;
        return result;
      });
      write = applying;
      // The writer has been refused, and waits in pauses of 2 ms by now.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(applied).toBe(false);
      // The other process commits and announces it, as its commit groups do.
      other.db.exec('COMMIT');
      releases.announce(file);
      // Microtasks only, no timer can run meanwhile: only the announcement can have woken the write.
      for (let hop = 0; hop < 100 && !applied; hop++) await Promise.resolve();
      expect(applied).toBe(true);
      await (
        await applying
      ).committed;
      // The writer's own commit was announced too.
      expect(releases.announced.filter((announced) => announced === file)).toHaveLength(2);
      expect(metaValue(other, 'a')).toBe('writer');
    } finally {
      // Settled (applied, or failed) before its connection closes.
      await write?.catch(() => undefined);
      await writer.close();
      await other.close();
    }
  });
});
