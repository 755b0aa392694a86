import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import {
  assertInvitationOpen,
  assertInviteeMayTake,
  ConflictError,
  invitationNotOpen,
  isProfileActive,
  linkedProfile,
  NotFoundError,
  personHasAnotherProfile,
  storedTenantRole,
} from '@odp/core';
import type {
  ApiKeyRecord,
  Invitation,
  LinkedProfile,
  NewProfile,
  PlatformRegistry,
  TenantRecord,
  UserProfile,
} from '@odp/core';
import { openSharedDatabase, PLATFORM_MIGRATIONS } from '../migrations.js';
import { lockedWrites } from '../write-lock.js';
import type { LockedWrite } from '../write-lock.js';
import { SqliteModelVersions } from './model-versions.js';
import {
  INVITATION_COLUMNS,
  TENANT_COLUMNS,
  PROFILE_COLUMNS,
  KEY_COLUMNS,
  toInvitation,
  toTenant,
  toActivity,
  toProfile,
  toApiKey,
} from './rows.js';
import { isUniqueViolation } from '../sqlite-errors.js';
import type { TenantRow, ProfileRow, InvitationRow, ApiKeyRow } from './rows.js';

/**
 * Opens (creating and migrating when needed) the platform registry in one SQLite file.
 * Durability: WAL with `synchronous = FULL`; a write is on disk when its promise resolves, so it
 * survives a killed process. Several processes (api, `odp`) may open the same file.
 *
 * The reads every request makes (API key by hash, profile, settings) are answered from memory while
 * the database is unchanged: `PRAGMA data_version` changes whenever another connection (another
 * process, such as `odp`) has committed, and every write through this connection drops the
 * remembered reads, so a revoked key or a suspended profile is refused on the very next request.
 */
export function openSqlitePlatformRegistry(file: string): SqlitePlatformRegistry {
  mkdirSync(path.dirname(file), { recursive: true });
  const { db, before } = openSharedDatabase(file, PLATFORM_MIGRATIONS, { foreignKeys: true });
  return new SqlitePlatformRegistry(db, before === 0);
}

/** Remembered reads at most; unknown keys are remembered too, so random keys cannot grow it without bound. */
const MAX_REMEMBERED_READS = 10_000;
/** Writes through every registry connection of this process (see `checkedThisTurn`). */
let writesInThisProcess = 0;

export class SqlitePlatformRegistry implements PlatformRegistry {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly remembered = new Map<string, unknown>();
  /** `PRAGMA data_version` when `remembered` was last valid. */
  private rememberedVersion = -1;
  /**
   * `writesInThisProcess` at the last version check, until the event loop's next turn (undefined
   * after it): the lookups of one request (key, profile, settings) run in one turn, and one check
   * stands for all of them, as if they were read at that instant, unless a connection of this
   * process wrote since (which this process may already have acted on). Another process's commit
   * reaches this one only in a later turn. Each check costs a read of the WAL index.
   */
  private checkedThisTurn: number | undefined;
  /** Runs a write, waiting for another process's lock without blocking (write-lock.ts). */
  private readonly whenLocked: LockedWrite;

  /** The tenants' model versions (model-versions.ts). */
  readonly modelVersions: SqliteModelVersions;

  constructor(
    private readonly db: Database.Database,
    /** True when this open created the database (a first start on an empty data directory). */
    readonly created: boolean,
  ) {
    this.whenLocked = lockedWrites(db);
    this.modelVersions = new SqliteModelVersions(db, this.whenLocked, () => {
      this.remembered.clear();
      writesInThisProcess += 1;
    });
  }

  async createTenant(input: { name: string; modelSource: string | null }): Promise<TenantRecord> {
    const row: TenantRow = {
      id: randomUUID(),
      name: input.name,
      model_source: input.modelSource,
      webhook_secret: randomBytes(32).toString('base64url'),
      created_at: new Date().toISOString(),
    };
    await this.write(
      `INSERT INTO tenants (${TENANT_COLUMNS}) VALUES (@id, @name, @model_source, @webhook_secret, @created_at)`,
      row,
    );
    return toTenant(row);
  }

  async getTenant(id: string): Promise<TenantRecord | null> {
    const row = this.statement(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = ?`).get(id) as
      TenantRow | undefined;
    return row === undefined ? null : toTenant(row);
  }

  async listTenants(): Promise<TenantRecord[]> {
    const rows = this.statement(`SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY created_at, rowid`).all();
    return (rows as TenantRow[]).map(toTenant);
  }

  async tenantsOfPerson(issuer: string, subject: string, now: Date): Promise<TenantRecord[]> {
    const rows = this.statement(
      `SELECT t.id, t.name, t.model_source, t.webhook_secret, t.created_at, p.active, p.active_until
         FROM tenants t JOIN profiles p ON p.tenant_id = t.id
         WHERE p.issuer = ? AND p.subject = ? ORDER BY t.created_at, t.rowid`,
    ).all(issuer, subject) as (TenantRow & { active: number; active_until: string | null })[];
    return rows.filter((row) => isProfileActive(toActivity(row), now)).map(toTenant);
  }

  async deleteTenant(id: string): Promise<boolean> {
    return (await this.write('DELETE FROM tenants WHERE id = ?', id)).changes > 0;
  }

  async createProfile(input: NewProfile): Promise<UserProfile> {
    if ((await this.getTenant(input.tenantId)) === null) throw new NotFoundError('No such tenant.');
    const row: ProfileRow = {
      id: randomUUID(),
      tenant_id: input.tenantId,
      issuer: input.issuer ?? '',
      subject: input.subject,
      email: input.email,
      role: input.role,
      extra_roles: JSON.stringify(input.extraRoles ?? []),
      object_id: input.objectId ?? null,
      active: 1,
      active_until: input.activeUntil ?? null,
      created_at: new Date().toISOString(),
    };
    try {
      await this.write(
        `INSERT INTO profiles (${PROFILE_COLUMNS}) VALUES (@id, @tenant_id, @issuer, @subject, @email, @role,
         @extra_roles, @object_id, @active, @active_until, @created_at)`,
        row,
      );
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError('This person already has a profile in the tenant.');
      throw error;
    }
    return toProfile(row);
  }

  async getProfile(tenantId: string, profileId: string): Promise<UserProfile | null> {
    return this.oneProfile('tenant_id = ? AND id = ?', tenantId, profileId);
  }

  async findProfileByPerson(tenantId: string, issuer: string, subject: string): Promise<UserProfile | null> {
    return this.oneProfile('tenant_id = ? AND issuer = ? AND subject = ?', tenantId, issuer, subject);
  }

  async findProfileByEmail(tenantId: string, email: string): Promise<UserProfile | null> {
    return this.oneProfile(
      'tenant_id = ? AND email = ? COLLATE NOCASE ORDER BY created_at, rowid',
      tenantId,
      email,
    );
  }

  async setProfileActive(tenantId: string, profileId: string, active: boolean): Promise<UserProfile> {
    await this.write(
      'UPDATE profiles SET active = ? WHERE tenant_id = ? AND id = ?',
      active ? 1 : 0,
      tenantId,
      profileId,
    );
    const profile = await this.getProfile(tenantId, profileId);
    if (profile === null) throw new NotFoundError('No such profile in this tenant.');
    return profile;
  }

  async listProfiles(tenantId: string): Promise<UserProfile[]> {
    const rows = this.statement(
      `SELECT ${PROFILE_COLUMNS} FROM profiles WHERE tenant_id = ? ORDER BY created_at, rowid`,
    ).all(tenantId) as ProfileRow[];
    return rows.map(toProfile);
  }

  async profilesLinkedTo(tenantId: string, objectId: string): Promise<LinkedProfile[]> {
    const rows = this.statement(
      `SELECT id, role, extra_roles FROM profiles WHERE tenant_id = ? AND object_id = ? ORDER BY created_at, rowid`,
    ).all(tenantId, objectId) as Pick<ProfileRow, 'id' | 'role' | 'extra_roles'>[];
    return rows.map((row) => ({
      profileId: row.id,
      role: storedTenantRole(row.role),
      extraRoles: JSON.parse(row.extra_roles) as string[],
    }));
  }

  async linkProfile(tenantId: string, profileId: string, objectId: string): Promise<UserProfile> {
    // Only a profile without an identity changes (mayLinkProfile); the condition keeps that true
    // against an invitation accepted at the same moment.
    await this.write(
      'UPDATE profiles SET object_id = ? WHERE tenant_id = ? AND id = ? AND subject IS NULL',
      objectId,
      tenantId,
      profileId,
    );
    const profile = await this.getProfile(tenantId, profileId);
    if (profile === null) throw new NotFoundError('No such profile in this tenant.');
    return linkedProfile(profile, objectId);
  }

  async createInvitation(input: {
    tenantId: string;
    profileId: string;
    tokenHash: string;
    expiresAt: string;
  }): Promise<Invitation> {
    if ((await this.getProfile(input.tenantId, input.profileId)) === null) {
      throw new NotFoundError('No such profile in this tenant.');
    }
    const id = randomUUID();
    await this.write(
      `INSERT INTO invitations (id, tenant_id, profile_id, token_hash, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      id,
      input.tenantId,
      input.profileId,
      input.tokenHash,
      new Date().toISOString(),
      input.expiresAt,
    );
    return toInvitation(
      this.statement(
        `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN profiles p ON p.id = i.profile_id WHERE i.id = ?`,
      ).get(id) as InvitationRow,
    );
  }

  async listInvitations(tenantId: string): Promise<Invitation[]> {
    const rows = this.statement(
      `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN profiles p ON p.id = i.profile_id
       WHERE i.tenant_id = ? ORDER BY i.created_at, i.rowid`,
    ).all(tenantId) as InvitationRow[];
    return rows.map(toInvitation);
  }

  async acceptInvitation(
    tokenHash: string,
    issuer: string,
    subject: string,
    now: Date,
  ): Promise<UserProfile> {
    const accept = this.db.transaction((): { tenantId: string; profileId: string } => {
      const invitation = this.statement(
        `SELECT i.tenant_id, i.profile_id, i.expires_at, i.accepted_at, p.issuer, p.subject
         FROM invitations i JOIN profiles p ON p.id = i.profile_id WHERE i.token_hash = ?`,
      ).get(tokenHash) as
        | {
            tenant_id: string;
            profile_id: string;
            expires_at: string;
            accepted_at: string | null;
            issuer: string;
            subject: string | null;
          }
        | undefined;
      if (invitation === undefined) throw invitationNotOpen();
      assertInvitationOpen({ acceptedAt: invitation.accepted_at, expiresAt: invitation.expires_at }, now);
      assertInviteeMayTake(invitation, issuer, subject);
      try {
        this.run(
          'UPDATE profiles SET issuer = ?, subject = ?, active = 1 WHERE id = ?',
          issuer,
          subject,
          invitation.profile_id,
        );
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw personHasAnotherProfile();
        }
        throw error;
      }
      this.run('UPDATE invitations SET accepted_at = ? WHERE token_hash = ?', now.toISOString(), tokenHash);
      return { tenantId: invitation.tenant_id, profileId: invitation.profile_id };
    });
    const { tenantId, profileId } = await this.whenLocked(() => accept.immediate());
    return (await this.getProfile(tenantId, profileId))!;
  }

  async createApiKey(input: {
    tenantId: string;
    profileId: string | null;
    expiresAt: string | null;
    keyHash: string;
  }): Promise<ApiKeyRecord> {
    if ((await this.getTenant(input.tenantId)) === null) throw new NotFoundError('No such tenant.');
    if (input.profileId !== null && (await this.getProfile(input.tenantId, input.profileId)) === null) {
      throw new NotFoundError('No such profile in this tenant.');
    }
    const row = {
      id: randomUUID(),
      tenant_id: input.tenantId,
      profile_id: input.profileId,
      key_hash: input.keyHash,
      expires_at: input.expiresAt,
      revoked_at: null,
      created_at: new Date().toISOString(),
    };
    await this.write(
      `INSERT INTO api_keys (${KEY_COLUMNS}, key_hash)
       VALUES (@id, @tenant_id, @profile_id, @expires_at, @revoked_at, @created_at, @key_hash)`,
      row,
    );
    return toApiKey(row);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.remember(`key\u0000${keyHash}`, () => {
      const row = this.statement(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`).get(keyHash) as
        ApiKeyRow | undefined;
      return row === undefined ? null : toApiKey(row);
    });
  }

  async listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    const rows = this.statement(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = ? ORDER BY created_at, rowid`,
    ).all(tenantId) as ApiKeyRow[];
    return rows.map(toApiKey);
  }

  async revokeApiKey(tenantId: string, keyId: string, now: Date): Promise<ApiKeyRecord> {
    await this.write(
      'UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      now.toISOString(),
      tenantId,
      keyId,
    );
    const row = this.statement(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = ? AND id = ?`).get(
      tenantId,
      keyId,
    ) as ApiKeyRow | undefined;
    if (row === undefined) throw new NotFoundError('No such API key in this tenant.');
    return toApiKey(row);
  }

  async getSetting(key: string): Promise<string | null> {
    return this.remember(`setting\u0000${key}`, () => {
      const row = this.statement('SELECT value FROM settings WHERE key = ?').get(key) as
        { value: string } | undefined;
      return row?.value ?? null;
    });
  }

  async setSetting(key: string, value: string): Promise<void> {
    await this.write(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private oneProfile(where: string, ...params: string[]): UserProfile | null {
    return this.remember(`profile\u0000${where}\u0000${params.join('\u0000')}`, () => {
      const row = this.statement(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE ${where} LIMIT 1`).get(
        ...params,
      ) as ProfileRow | undefined;
      return row === undefined ? null : toProfile(row);
    });
  }

  private statement(sql: string): Database.Statement {
    let prepared = this.statements.get(sql);
    if (prepared === undefined) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * Runs a write statement on its own, waiting for the lock another process holds without
   * blocking the event loop (write-lock.ts).
   */
  private write(sql: string, ...params: unknown[]): Promise<Database.RunResult> {
    return this.whenLocked(() => this.run(sql, ...params));
  }

  /** Runs a write; what was remembered may be stale afterwards (this connection's commits leave data_version alone). */
  private run(sql: string, ...params: unknown[]): Database.RunResult {
    try {
      return this.statement(sql).run(...params);
    } finally {
      this.remembered.clear();
      writesInThisProcess += 1;
    }
  }

  /**
   * `read()`, or what it answered before while no connection has written since: this connection's
   * writes clear the remembered reads, other connections' commits change `PRAGMA data_version`
   * (checked once per turn of the event loop, see `checkedThisTurn`).
   */
  private remember<T>(key: string, read: () => T): T {
    if (this.checkedThisTurn !== writesInThisProcess) {
      const version = this.statement('PRAGMA data_version').pluck().get() as number;
      if (version !== this.rememberedVersion) {
        this.remembered.clear();
        this.rememberedVersion = version;
      }
      if (this.checkedThisTurn === undefined) {
        setImmediate(() => {
          this.checkedThisTurn = undefined;
        });
      }
      this.checkedThisTurn = writesInThisProcess;
    }
    if (this.remembered.has(key)) return this.remembered.get(key) as T;
    const value = read();
    if (this.remembered.size >= MAX_REMEMBERED_READS) this.remembered.clear();
    this.remembered.set(key, value);
    return value;
  }
}
