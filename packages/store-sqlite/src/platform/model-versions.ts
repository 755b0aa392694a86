/**
 * The registry's model versions in SQLite (`model_versions`, `current_model_versions`): a version
 * number is the tenant's highest plus one, taken in the transaction that stores the bundle, and the
 * (tenant, hash) key makes the same files one version.
 */
import type Database from 'better-sqlite3';
import { NotFoundError } from '@odp/core';
import type { ModelVersionRecord, ModelVersions } from '@odp/core';
import type { LockedWrite } from '../write-lock.js';

interface VersionRow {
  tenant_id: string;
  version: number;
  hash: string;
  bytes: number;
  created_at: string;
}

const VERSION_COLUMNS = 'tenant_id, version, hash, bytes, created_at';

function toRecord(row: VersionRow): ModelVersionRecord {
  return {
    tenantId: row.tenant_id,
    version: row.version,
    hash: row.hash,
    bytes: row.bytes,
    createdAt: row.created_at,
  };
}

export class SqliteModelVersions implements ModelVersions {
  constructor(
    private readonly db: Database.Database,
    /** Runs a write, waiting for another process's lock without blocking (write-lock.ts). */
    private readonly whenLocked: LockedWrite,
    /** Runs a write statement (the registry drops its remembered reads). */
    private readonly afterWrite: () => void,
  ) {}

  async save(tenantId: string, hash: string, bundle: string): Promise<ModelVersionRecord> {
    const save = this.db.transaction((): VersionRow => {
      const existing = this.db
        .prepare(`SELECT ${VERSION_COLUMNS} FROM model_versions WHERE tenant_id = ? AND hash = ?`)
        .get(tenantId, hash) as VersionRow | undefined;
      if (existing !== undefined) return existing;
      if (this.db.prepare('SELECT 1 FROM tenants WHERE id = ?').get(tenantId) === undefined) {
        throw new NotFoundError('No such tenant.');
      }
      const last = this.db
        .prepare('SELECT MAX(version) FROM model_versions WHERE tenant_id = ?')
        .pluck()
        .get(tenantId) as number | null;
      const row: VersionRow = {
        tenant_id: tenantId,
        version: (last ?? 0) + 1,
        hash,
        bytes: Buffer.byteLength(bundle),
        created_at: new Date().toISOString(),
      };
      this.db
        .prepare(
          `INSERT INTO model_versions (${VERSION_COLUMNS}, bundle) VALUES (@tenant_id, @version, @hash, @bytes, @created_at, @bundle)`,
        )
        .run({ ...row, bundle });
      return row;
    });
    try {
      return toRecord(await this.whenLocked(() => save.immediate()));
    } finally {
      this.afterWrite();
    }
  }

  async read(
    tenantId: string,
    version: number,
  ): Promise<{ record: ModelVersionRecord; bundle: string } | null> {
    const row = this.db
      .prepare(`SELECT ${VERSION_COLUMNS}, bundle FROM model_versions WHERE tenant_id = ? AND version = ?`)
      .get(tenantId, version) as (VersionRow & { bundle: string }) | undefined;
    return row === undefined ? null : { record: toRecord(row), bundle: row.bundle };
  }

  async list(tenantId: string): Promise<ModelVersionRecord[]> {
    const rows = this.db
      .prepare(`SELECT ${VERSION_COLUMNS} FROM model_versions WHERE tenant_id = ? ORDER BY version`)
      .all(tenantId) as VersionRow[];
    return rows.map(toRecord);
  }

  async setCurrent(tenantId: string, version: number): Promise<void> {
    const exists = this.db
      .prepare('SELECT 1 FROM model_versions WHERE tenant_id = ? AND version = ?')
      .get(tenantId, version);
    if (exists === undefined) throw new NotFoundError('No such model version.');
    try {
      const setVersion = this.db.prepare(
        `INSERT INTO current_model_versions (tenant_id, version) VALUES (?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET version = excluded.version`,
      );
      await this.whenLocked(() => setVersion.run(tenantId, version));
    } finally {
      this.afterWrite();
    }
  }

  async current(tenantId: string): Promise<ModelVersionRecord | null> {
    const row = this.db
      .prepare(
        `SELECT v.tenant_id, v.version, v.hash, v.bytes, v.created_at
         FROM current_model_versions c JOIN model_versions v
           ON v.tenant_id = c.tenant_id AND v.version = c.version
         WHERE c.tenant_id = ?`,
      )
      .get(tenantId) as VersionRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  async currentOfAll(): Promise<ReadonlyMap<string, number>> {
    const rows = this.db.prepare('SELECT tenant_id, version FROM current_model_versions').all() as {
      tenant_id: string;
      version: number;
    }[];
    return new Map(rows.map((row) => [row.tenant_id, row.version]));
  }
}
