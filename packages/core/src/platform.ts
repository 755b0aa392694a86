/**
 * The platform registry port: tenants, user profiles, API keys and model versions, shared by every api instance and
 * the `odp` command. Implemented by `@odp/store-sqlite` (`openSqlitePlatformRegistry`, the embedded default) and
 * `@odp/store-mongodb` (`openMongoPlatformRegistry`, with `ODP_STORE=mongodb`); both run the contract
 * suite `describePlatformRegistryContract`.
 * Timestamps are ISO-8601 UTC strings; `activeUntil` is a date `YYYY-MM-DD` (inclusive, UTC).
 */
import type { TenantRole } from './account.js';
import type { LinkedProfile } from './access.js';
import { ConflictError, NotFoundError } from './errors.js';
import type { ModelVersions } from './model-versions.js';

export interface TenantRecord {
  readonly id: string;
  readonly name: string;
  /** Where the tenant's model repository lives (an absolute directory), or null for an empty model. */
  readonly modelSource: string | null;
  /** Shared secret that authenticates model-repository push webhooks. Never returned by the api. */
  readonly webhookSecret: string;
  readonly createdAt: string;
}

export interface UserProfile {
  readonly id: string;
  readonly tenantId: string;
  /**
   * The signed-in person is (issuer, subject). Both null for a profile that cannot sign in
   * (reached only through user-bound keys); issuer null when no identity provider was named.
   */
  readonly issuer: string | null;
  readonly subject: string | null;
  readonly email: string;
  readonly role: TenantRole;
  readonly extraRoles: readonly string[];
  readonly objectId: string | null;
  /** false when suspended. */
  readonly active: boolean;
  readonly activeUntil: string | null;
  readonly createdAt: string;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  /** The profile a user-bound key runs as; null for a system key. */
  readonly profileId: string | null;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly createdAt: string;
}

/**
 * An invitation of a person to a tenant (the UserInvitation gateway): a one-time token, kept only as
 * its SHA-256 hash, that a signed-in person redeems (`POST /invitations/{token}`) to become the
 * profile's person. `acceptedAt` is set once it was redeemed.
 */
export interface Invitation {
  readonly id: string;
  readonly tenantId: string;
  readonly profileId: string;
  readonly email: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly acceptedAt: string | null;
}

export interface NewProfile {
  readonly tenantId: string;
  readonly issuer: string | null;
  readonly subject: string | null;
  readonly email: string;
  readonly role: TenantRole;
  readonly extraRoles?: readonly string[];
  readonly objectId?: string | null;
  readonly activeUntil?: string | null;
}

export interface PlatformRegistry {
  createTenant(input: { name: string; modelSource: string | null }): Promise<TenantRecord>;
  getTenant(id: string): Promise<TenantRecord | null>;
  /** All tenants, oldest first. */
  listTenants(): Promise<TenantRecord[]>;
  /** Tenants where the person (issuer, subject) has an active profile at `now`, oldest first. */
  tenantsOfPerson(issuer: string, subject: string, now: Date): Promise<TenantRecord[]>;
  /** Removes the tenant with its profiles and keys. Returns false when it did not exist. */
  deleteTenant(id: string): Promise<boolean>;

  /** Throws NotFoundError for an unknown tenant, ConflictError when the person already has a profile there. */
  createProfile(input: NewProfile): Promise<UserProfile>;
  getProfile(tenantId: string, profileId: string): Promise<UserProfile | null>;
  findProfileByPerson(tenantId: string, issuer: string, subject: string): Promise<UserProfile | null>;
  findProfileByEmail(tenantId: string, email: string): Promise<UserProfile | null>;
  /** Suspends (false) or re-activates (true) a profile. Throws NotFoundError when it does not exist. */
  setProfileActive(tenantId: string, profileId: string, active: boolean): Promise<UserProfile>;
  /** Every profile of the tenant, oldest first (active or not). */
  listProfiles(tenantId: string): Promise<UserProfile[]>;
  /** Profiles of the tenant linked to `objectId`, oldest first (active or not). */
  profilesLinkedTo(tenantId: string, objectId: string): Promise<LinkedProfile[]>;
  /**
   * Links the profile to the object `objectId` (its person), by the rule of {@link mayLinkProfile},
   * atomically: only a profile without an identity changes, one with an identity must be linked to
   * `objectId` already. NotFoundError when it does not exist, ConflictError when the rule refuses.
   */
  linkProfile(tenantId: string, profileId: string, objectId: string): Promise<UserProfile>;

  /** Stores an invitation to the profile by the hash of its token. Throws NotFoundError for an unknown profile. */
  createInvitation(input: {
    tenantId: string;
    profileId: string;
    tokenHash: string;
    expiresAt: string;
  }): Promise<Invitation>;
  /** Every invitation of the tenant, oldest first; never a token or its hash. */
  listInvitations(tenantId: string): Promise<Invitation[]>;
  /**
   * Redeems the invitation of `tokenHash` for the person (issuer, subject) at `now`: the profile
   * becomes theirs and active, the invitation accepted. NotFoundError for an unknown, expired or
   * already accepted invitation; ConflictError when the profile belongs to another person or the
   * person already has another profile in the tenant.
   */
  acceptInvitation(tokenHash: string, issuer: string, subject: string, now: Date): Promise<UserProfile>;

  /**
   * Stores a key by the hash of its value (the value itself is never stored).
   * Throws NotFoundError for an unknown tenant or a profile outside the tenant.
   */
  createApiKey(input: {
    tenantId: string;
    profileId: string | null;
    expiresAt: string | null;
    keyHash: string;
  }): Promise<ApiKeyRecord>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Every key of the tenant (revoked and expired ones too), oldest first; never a hash or a value. */
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (idempotent). Throws NotFoundError when the tenant has no such key. */
  revokeApiKey(tenantId: string, keyId: string, now: Date): Promise<ApiKeyRecord>;

  /** The tenants' model versions and the current one of each (removed with their tenant). */
  readonly modelVersions: ModelVersions;

  /** Small platform-wide settings (for example which tenant is the demo tenant). */
  getSetting(key: string): Promise<string | null>;
  setSetting(key: string, value: string): Promise<void>;

  close(): Promise<void>;
}

/**
 * The registry setting through which `odp rebuild` asks the running api to rebuild a tenant's derived
 * data: the command stores a fresh non-empty value; the api starts the rebuild on its next request to
 * the tenant and clears the value (so a restart does not rebuild again).
 */
export function rebuildRequestKey(tenantId: string): string {
  return `rebuildRequest:${tenantId}`;
}

/**
 * The registry setting through which `odp data load-defaults` asks the running api to load a tenant's
 * default data (the model's fixtures): the command stores a fresh non-empty value; the api loads the
 * fixtures on its next request to the tenant (objects that exist are skipped) and clears the value.
 */
export function defaultDataRequestKey(tenantId: string): string {
  return `defaultDataRequest:${tenantId}`;
}

/** Whether a profile may act at `now`: not suspended and `activeUntil` (inclusive, UTC) not passed. */
export function isProfileActive(profile: Pick<UserProfile, 'active' | 'activeUntil'>, now: Date): boolean {
  return (
    profile.active && (profile.activeUntil === null || now.toISOString().slice(0, 10) <= profile.activeUntil)
  );
}

/** Whether a key may be used at `now`: neither revoked nor expired. */
export function isApiKeyUsable(key: Pick<ApiKeyRecord, 'expiresAt' | 'revokedAt'>, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime());
}

/**
 * Whether `profile` may be linked to the person object `objectId`: while nobody has signed in with
 * it (no identity: a profile an invitation created and nobody accepted yet), or when it is linked
 * to that object already. The person object decides record access, and people are identified by
 * (issuer, subject), never by an e-mail address: a gateway run that names a signed-in person's
 * address (an invitation) must not move their profile, and with it their record access, to another
 * object (or link an unlinked one), whether the profile is active or suspended.
 */
export function mayLinkProfile(
  profile: Pick<UserProfile, 'subject' | 'objectId'>,
  objectId: string,
): boolean {
  return profile.subject === null || profile.objectId === objectId;
}

/**
 * `profile` as a registry's `linkProfile` answers it: read after an update that changed only a
 * profile without an identity; ConflictError when {@link mayLinkProfile} refuses the link.
 */
export function linkedProfile(profile: UserProfile, objectId: string): UserProfile {
  if (!mayLinkProfile(profile, objectId)) {
    throw new ConflictError(
      'The profile belongs to a person who signed in; its person object is not changed by an invitation.',
    );
  }
  return profile;
}

/** The NotFoundError of an invitation token that names no open invitation (the same for every cause). */
export function invitationNotOpen(): NotFoundError {
  return new NotFoundError('No such invitation, or it has expired or was used.');
}

/**
 * Throws {@link invitationNotOpen} unless the invitation exists, was not accepted and has not
 * expired at `now` (`acceptInvitation` of every registry).
 */
export function assertInvitationOpen<
  T extends { readonly acceptedAt: string | null; readonly expiresAt: string },
>(invitation: T | null, now: Date): asserts invitation is T {
  if (
    invitation === null ||
    invitation.acceptedAt !== null ||
    Date.parse(invitation.expiresAt) <= now.getTime()
  ) {
    throw invitationNotOpen();
  }
}

/**
 * The ConflictError of an invited profile that belongs to another person than the one accepting:
 * people are identified by (issuer, subject), so only a profile without an identity, or the
 * accepting person's own, is taken by accepting its invitation.
 */
export function invitedProfileTaken(): ConflictError {
  return new ConflictError('The invited profile belongs to another person.');
}

/** Throws {@link invitedProfileTaken} unless the profile has no identity or is (issuer, subject)'s. */
export function assertInviteeMayTake(
  profile: { readonly issuer: string | null; readonly subject: string | null },
  issuer: string,
  subject: string,
): void {
  if (profile.subject !== null && (profile.issuer !== issuer || profile.subject !== subject)) {
    throw invitedProfileTaken();
  }
}

/** The ConflictError of a person accepting an invitation who holds another profile in the tenant. */
export function personHasAnotherProfile(): ConflictError {
  return new ConflictError('This person already has another profile in the tenant.');
}
