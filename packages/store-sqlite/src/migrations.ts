import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS } from './write-lock.js';

/**
 * A numbered schema step. `version` numbers are 1, 2, 3, ... without gaps; a database records the
 * last applied one in `PRAGMA user_version`. A released migration is never edited: add the next one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: string | ((db: Database.Database) => void);
}

/**
 * Applies the pending migrations in order, each in its own transaction together with the
 * `user_version` bump, so a crash leaves the database at a whole version.
 * Returns the version the database was at before (0 for a new database).
 * Throws when the database is newer than the code (a downgrade would lose data).
 */
export function applyMigrations(db: Database.Database, migrations: readonly Migration[]): number {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration "${migration.name}" has version ${migration.version}, expected ${index + 1}.`,
      );
    }
  });
  const before = db.pragma('user_version', { simple: true }) as number;
  if (before > migrations.length) {
    throw new Error(
      `The database schema is version ${before}, newer than this release knows (${migrations.length}).`,
    );
  }
  for (const migration of migrations.slice(before)) {
    db.transaction(() => {
      // Another process opening the same new database (an api and a worker) may have applied the
      // step meanwhile: the version is read again under the write lock (BEGIN IMMEDIATE).
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return before;
}

/** The platform registry's schema. Later features append migrations here. */
export const PLATFORM_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tenants, profiles, api keys, settings',
    up: `
      CREATE TABLE tenants (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        model_source TEXT,
        webhook_secret TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE profiles (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        issuer TEXT NOT NULL DEFAULT '',
        subject TEXT,
        email TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
        extra_roles TEXT NOT NULL DEFAULT '[]',
        object_id TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        active_until TEXT,
        created_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX profiles_person ON profiles (tenant_id, issuer, subject) WHERE subject IS NOT NULL;
      CREATE INDEX profiles_email ON profiles (tenant_id, email);
      CREATE INDEX profiles_object ON profiles (tenant_id, object_id);
      CREATE INDEX profiles_subject ON profiles (issuer, subject);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        profile_id TEXT REFERENCES profiles(id) ON DELETE CASCADE,
        key_hash TEXT NOT NULL UNIQUE,
        expires_at TEXT,
        revoked_at TEXT,
        created_at TEXT NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'invitations',
    up: `
      CREATE TABLE invitations (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        accepted_at TEXT
      );
      CREATE INDEX invitations_tenant ON invitations (tenant_id, created_at);
    `,
  },
  {
    version: 3,
    name: 'model versions',
    up: `
      CREATE TABLE model_versions (
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        bundle TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tenant_id, version),
        UNIQUE (tenant_id, hash)
      );
      CREATE TABLE current_model_versions (
        tenant_id TEXT PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        FOREIGN KEY (tenant_id, version) REFERENCES model_versions (tenant_id, version)
      );
    `,
  },
];

/**
 * Opens a platform-wide file several processes share (the registry, the job queue, the
 * replication buffer) and brings it to the latest version of `migrations`: WAL, so readers do not
 * block the writer; `synchronous = FULL`, so a write is on disk when it returns; a 5 s busy
 * timeout for the other processes' writes. `before` is the version it was at (0 when new).
 */
export function openSharedDatabase(
  file: string,
  migrations: readonly Migration[],
  options: { readonly foreignKeys?: boolean } = {},
): { db: Database.Database; before: number } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  if (options.foreignKeys) db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return { db, before: applyMigrations(db, migrations) };
}
