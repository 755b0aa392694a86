/**
 * The platform registry (tenants, profiles, API keys, settings, model versions) on MongoDB, for deployments whose
 * api instances run on several hosts and so cannot share the embedded registry's SQLite file.
 *
 * One database (the one `ODP_MONGODB_URL` names in its path, else `odp_platform`) with a collection per record kind. Every uniqueness rule
 * is carried by a document `_id`, which every MongoDB-compatible server enforces: an API key's
 * `_id` is its hash, a setting's `_id` its key, and a person's profile in a tenant is claimed by a
 * `profilePersons` document whose `_id` is (tenant, issuer, subject) before the profile is written.
 * No operation needs a multi-document transaction:
 * - deleting a tenant removes its keys first (no credential works from the first step on), then its
 *   profiles, then the tenant; a delete cut short is completed by running it again;
 * - a profile whose insert fails releases its claim;
 * - an invitation is redeemed in the order described at `acceptInvitation`.
 * "Oldest first" orders by `createdAt`, then by a per-record ObjectId (creation order within one
 * process; within the same millisecond across processes the order is the ObjectIds').
 *
 * Reads are not cached here: the api caches registry reads under Redis invalidation
 * (`sharedRegistry` in @odp/core), so a key revoked through one instance is refused by all.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collection, Db, MongoClient } from 'mongodb';
import {
  assertInvitationOpen,
  assertInviteeMayTake,
  ConflictError,
  invitationNotOpen,
  invitedProfileTaken,
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
import { connectMongo, databaseOf } from '../connect.js';
import { MongoModelVersions } from './model-versions.js';
import { isDuplicateKey, upsertRacing } from '../server-errors.js';

/** The registry's database when the address names none (tenant databases are `odp_<hex id>`). */
export const PLATFORM_DATABASE = 'odp_platform';

interface Ordered {
  readonly createdAt: string;
  /** Creation order among records of the same millisecond. */
  readonly seq: ObjectId;
}

interface TenantDocument extends Ordered {
  _id: string;
  name: string;
  modelSource: string | null;
  webhookSecret: string;
}

interface ProfileDocument extends Ordered {
  _id: string;
  tenantId: string;
  issuer: string | null;
  subject: string | null;
  email: string;
  /** `email` lower-cased: profiles are found by email case-insensitively. */
  emailFolded: string;
  role: string;
  extraRoles: string[];
  objectId: string | null;
  active: boolean;
  activeUntil: string | null;
}

interface ProfilePersonDocument {
  /** `tenantId`, issuer (empty when none) and subject, joined by newlines. */
  _id: string;
  tenantId: string;
}

interface ApiKeyDocument extends Ordered {
  /** The hash of the key's value (the value itself is never stored). */
  _id: string;
  id: string;
  tenantId: string;
  profileId: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

interface InvitationDocument extends Ordered {
  /** The hash of the invitation's token (the token itself is never stored). */
  _id: string;
  id: string;
  tenantId: string;
  profileId: string;
  expiresAt: string;
  acceptedAt: string | null;
}

interface SettingDocument {
  _id: string;
  value: string;
}

const OLDEST_FIRST = { createdAt: 1, seq: 1 } as const;

export interface MongoPlatformRegistryOptions {
  readonly url: string;
  /** The database name; by default the one the address names, else `odp_platform`. */
  readonly database?: string;
  /** How long to wait for a server at open (default 5 s). */
  readonly timeoutMs?: number;
}

/**
 * Connects (MongoUnreachableError when no server answers) and returns the registry, which owns its
 * client: `close()` closes it.
 */
export async function openMongoPlatformRegistry(
  options: MongoPlatformRegistryOptions,
): Promise<MongoPlatformRegistry> {
  const client = await connectMongo(options.url, options.timeoutMs);
  const registry = new MongoPlatformRegistry(
    client,
    client.db(options.database ?? databaseOf(options.url) ?? PLATFORM_DATABASE),
  );
  await registry.createIndexes();
  return registry;
}

export class MongoPlatformRegistry implements PlatformRegistry {
  private readonly tenants: Collection<TenantDocument>;
  private readonly profiles: Collection<ProfileDocument>;
  private readonly profilePersons: Collection<ProfilePersonDocument>;
  private readonly apiKeys: Collection<ApiKeyDocument>;
  private readonly invitations: Collection<InvitationDocument>;
  private readonly settings: Collection<SettingDocument>;
  /** The tenants' model versions (model-versions.ts). */
  readonly modelVersions: MongoModelVersions;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.tenants = db.collection('tenants');
    this.profiles = db.collection('profiles');
    this.profilePersons = db.collection('profilePersons');
    this.apiKeys = db.collection('apiKeys');
    this.invitations = db.collection('invitations');
    this.settings = db.collection('settings');
    this.modelVersions = new MongoModelVersions(db);
  }

  /** The indexes of the tenant-scoped lists; uniqueness needs none (it is carried by `_id`). */
  async createIndexes(): Promise<void> {
    await this.profiles.createIndex({ tenantId: 1, createdAt: 1, seq: 1 });
    await this.apiKeys.createIndex({ tenantId: 1, createdAt: 1, seq: 1 });
    await this.invitations.createIndex({ tenantId: 1, createdAt: 1, seq: 1 });
    await this.modelVersions.createIndexes();
  }

  async createTenant(input: { name: string; modelSource: string | null }): Promise<TenantRecord> {
    const document: TenantDocument = {
      _id: randomUUID(),
      name: input.name,
      modelSource: input.modelSource,
      webhookSecret: randomBytes(32).toString('base64url'),
      ...ordered(),
    };
    await this.tenants.insertOne(document);
    return toTenant(document);
  }

  async getTenant(id: string): Promise<TenantRecord | null> {
    const document = await this.tenants.findOne({ _id: id });
    return document === null ? null : toTenant(document);
  }

  async listTenants(): Promise<TenantRecord[]> {
    return (await this.tenants.find().sort(OLDEST_FIRST).toArray()).map(toTenant);
  }

  async tenantsOfPerson(issuer: string, subject: string, now: Date): Promise<TenantRecord[]> {
    const profiles = await this.profiles.find({ issuer, subject }).toArray();
    const ids = profiles
      .filter((profile) => isProfileActive(profile, now))
      .map((profile) => profile.tenantId);
    if (ids.length === 0) return [];
    return (
      await this.tenants
        .find({ _id: { $in: ids } })
        .sort(OLDEST_FIRST)
        .toArray()
    ).map(toTenant);
  }

  async deleteTenant(id: string): Promise<boolean> {
    await this.apiKeys.deleteMany({ tenantId: id });
    await this.invitations.deleteMany({ tenantId: id });
    await this.profiles.deleteMany({ tenantId: id });
    await this.profilePersons.deleteMany({ tenantId: id });
    await this.modelVersions.deleteTenant(id);
    return (await this.tenants.deleteOne({ _id: id })).deletedCount > 0;
  }

  async createProfile(input: NewProfile): Promise<UserProfile> {
    if ((await this.getTenant(input.tenantId)) === null) throw new NotFoundError('No such tenant.');
    const claim =
      input.subject === null ? null : [input.tenantId, input.issuer ?? '', input.subject].join('\n');
    if (claim !== null) {
      try {
        await this.profilePersons.insertOne({ _id: claim, tenantId: input.tenantId });
      } catch (error) {
        if (isDuplicateKey(error))
          throw new ConflictError('This person already has a profile in the tenant.');
        throw error;
      }
    }
    const document: ProfileDocument = {
      _id: randomUUID(),
      tenantId: input.tenantId,
      issuer: input.issuer,
      subject: input.subject,
      email: input.email,
      emailFolded: input.email.toLowerCase(),
      role: input.role,
      extraRoles: [...(input.extraRoles ?? [])],
      objectId: input.objectId ?? null,
      active: true,
      activeUntil: input.activeUntil ?? null,
      ...ordered(),
    };
    try {
      await this.profiles.insertOne(document);
    } catch (error) {
      if (claim !== null) await this.profilePersons.deleteOne({ _id: claim });
      throw error;
    }
    return toProfile(document);
  }

  async getProfile(tenantId: string, profileId: string): Promise<UserProfile | null> {
    return this.oneProfile({ tenantId, _id: profileId });
  }

  async findProfileByPerson(tenantId: string, issuer: string, subject: string): Promise<UserProfile | null> {
    return this.oneProfile({ tenantId, issuer, subject });
  }

  async findProfileByEmail(tenantId: string, email: string): Promise<UserProfile | null> {
    return this.oneProfile({ tenantId, emailFolded: email.toLowerCase() });
  }

  async setProfileActive(tenantId: string, profileId: string, active: boolean): Promise<UserProfile> {
    const document = await this.profiles.findOneAndUpdate(
      { tenantId, _id: profileId },
      { $set: { active } },
      { returnDocument: 'after' },
    );
    if (document === null) throw new NotFoundError('No such profile in this tenant.');
    return toProfile(document);
  }

  async listProfiles(tenantId: string): Promise<UserProfile[]> {
    return (await this.profiles.find({ tenantId }).sort(OLDEST_FIRST).toArray()).map(toProfile);
  }

  async profilesLinkedTo(tenantId: string, objectId: string): Promise<LinkedProfile[]> {
    const documents = await this.profiles.find({ tenantId, objectId }).sort(OLDEST_FIRST).toArray();
    return documents.map((document) => ({
      profileId: document._id,
      role: storedTenantRole(document.role),
      extraRoles: document.extraRoles,
    }));
  }

  async linkProfile(tenantId: string, profileId: string, objectId: string): Promise<UserProfile> {
    // Only a profile without an identity changes (mayLinkProfile); the filter keeps that true
    // against an invitation accepted at the same moment.
    await this.profiles.updateOne({ tenantId, _id: profileId, subject: null }, { $set: { objectId } });
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
    const profile = await this.getProfile(input.tenantId, input.profileId);
    if (profile === null) throw new NotFoundError('No such profile in this tenant.');
    const document: InvitationDocument = {
      _id: input.tokenHash,
      id: randomUUID(),
      tenantId: input.tenantId,
      profileId: input.profileId,
      expiresAt: input.expiresAt,
      acceptedAt: null,
      ...ordered(),
    };
    await this.invitations.insertOne(document);
    return toInvitation(document, profile.email);
  }

  async listInvitations(tenantId: string): Promise<Invitation[]> {
    const invitations = await this.invitations.find({ tenantId }).sort(OLDEST_FIRST).toArray();
    const emails = new Map((await this.listProfiles(tenantId)).map((profile) => [profile.id, profile.email]));
    return invitations.flatMap((invitation) => {
      const email = emails.get(invitation.profileId);
      return email === undefined ? [] : [toInvitation(invitation, email)];
    });
  }

  /**
   * Without a transaction, in an order whose every prefix is safe: the person is claimed in the
   * tenant (ConflictError when they hold another profile), the profile becomes theirs only while it
   * belongs to nobody else, and only then is the invitation marked accepted. A redemption cut short
   * after the profile step leaves the invitation usable by the same person only.
   */
  async acceptInvitation(
    tokenHash: string,
    issuer: string,
    subject: string,
    now: Date,
  ): Promise<UserProfile> {
    const invitation = await this.invitations.findOne({ _id: tokenHash });
    assertInvitationOpen(invitation, now);
    const { tenantId, profileId } = invitation;
    const profile = await this.profiles.findOne({ tenantId, _id: profileId });
    if (profile === null) throw invitationNotOpen();
    assertInviteeMayTake(profile, issuer, subject);
    const theirs = profile.issuer === issuer && profile.subject === subject;
    const claim = [tenantId, issuer, subject].join('\n');
    if (!theirs) {
      try {
        await this.profilePersons.insertOne({ _id: claim, tenantId });
      } catch (error) {
        if (isDuplicateKey(error)) throw personHasAnotherProfile();
        throw error;
      }
      const taken = await this.profiles.updateOne(
        { tenantId, _id: profileId, subject: null },
        { $set: { issuer, subject, active: true } },
      );
      if (taken.matchedCount === 0) {
        await this.profilePersons.deleteOne({ _id: claim });
        throw invitedProfileTaken();
      }
    } else {
      await this.profiles.updateOne({ tenantId, _id: profileId }, { $set: { active: true } });
    }
    const accepted = await this.invitations.updateOne(
      { _id: tokenHash, acceptedAt: null },
      { $set: { acceptedAt: now.toISOString() } },
    );
    if (accepted.matchedCount === 0) throw invitationNotOpen();
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
    const document: ApiKeyDocument = {
      _id: input.keyHash,
      id: randomUUID(),
      tenantId: input.tenantId,
      profileId: input.profileId,
      expiresAt: input.expiresAt,
      revokedAt: null,
      ...ordered(),
    };
    await this.apiKeys.insertOne(document);
    return toApiKey(document);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const document = await this.apiKeys.findOne({ _id: keyHash });
    return document === null ? null : toApiKey(document);
  }

  async listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    return (await this.apiKeys.find({ tenantId }).sort(OLDEST_FIRST).toArray()).map(toApiKey);
  }

  async revokeApiKey(tenantId: string, keyId: string, now: Date): Promise<ApiKeyRecord> {
    await this.apiKeys.updateOne(
      { tenantId, id: keyId, revokedAt: null },
      { $set: { revokedAt: now.toISOString() } },
    );
    const document = await this.apiKeys.findOne({ tenantId, id: keyId });
    if (document === null) throw new NotFoundError('No such API key in this tenant.');
    return toApiKey(document);
  }

  async getSetting(key: string): Promise<string | null> {
    return (await this.settings.findOne({ _id: key }))?.value ?? null;
  }

  async setSetting(key: string, value: string): Promise<void> {
    await upsertRacing(() => this.settings.updateOne({ _id: key }, { $set: { value } }, { upsert: true }));
  }

  /** Drops the registry's database (tests). */
  async drop(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async oneProfile(
    filter: Partial<Pick<ProfileDocument, '_id' | 'tenantId' | 'issuer' | 'subject' | 'emailFolded'>>,
  ): Promise<UserProfile | null> {
    const [document] = await this.profiles.find(filter).sort(OLDEST_FIRST).limit(1).toArray();
    return document === undefined ? null : toProfile(document);
  }
}

function ordered(): Ordered {
  return { createdAt: new Date().toISOString(), seq: new ObjectId() };
}

function toTenant(document: TenantDocument): TenantRecord {
  return {
    id: document._id,
    name: document.name,
    modelSource: document.modelSource,
    webhookSecret: document.webhookSecret,
    createdAt: document.createdAt,
  };
}

function toProfile(document: ProfileDocument): UserProfile {
  return {
    id: document._id,
    tenantId: document.tenantId,
    issuer: document.issuer,
    subject: document.subject,
    email: document.email,
    role: storedTenantRole(document.role),
    extraRoles: document.extraRoles,
    objectId: document.objectId,
    active: document.active,
    activeUntil: document.activeUntil,
    createdAt: document.createdAt,
  };
}

function toInvitation(document: InvitationDocument, email: string): Invitation {
  return {
    id: document.id,
    tenantId: document.tenantId,
    profileId: document.profileId,
    email,
    createdAt: document.createdAt,
    expiresAt: document.expiresAt,
    acceptedAt: document.acceptedAt,
  };
}

function toApiKey(document: ApiKeyDocument): ApiKeyRecord {
  return {
    id: document.id,
    tenantId: document.tenantId,
    profileId: document.profileId,
    expiresAt: document.expiresAt,
    revokedAt: document.revokedAt,
    createdAt: document.createdAt,
  };
}
