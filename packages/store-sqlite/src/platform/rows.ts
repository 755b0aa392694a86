/**
 * The rows of the platform registry's tables and their mapping to the records of `@odp/core`.
 */
import { storedTenantRole } from '@odp/core';
import type { ApiKeyRecord, Invitation, TenantRecord, UserProfile } from '@odp/core';
export interface TenantRow {
  id: string;
  name: string;
  model_source: string | null;
  webhook_secret: string;
  created_at: string;
}

export interface ProfileRow {
  id: string;
  tenant_id: string;
  issuer: string;
  subject: string | null;
  email: string;
  role: string;
  extra_roles: string;
  object_id: string | null;
  active: number;
  active_until: string | null;
  created_at: string;
}

export interface InvitationRow {
  id: string;
  tenant_id: string;
  profile_id: string;
  email: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export const INVITATION_COLUMNS =
  'i.id, i.tenant_id, i.profile_id, p.email, i.created_at, i.expires_at, i.accepted_at';

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  profile_id: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export const TENANT_COLUMNS = 'id, name, model_source, webhook_secret, created_at';
export const PROFILE_COLUMNS =
  'id, tenant_id, issuer, subject, email, role, extra_roles, object_id, active, active_until, created_at';
export const KEY_COLUMNS = 'id, tenant_id, profile_id, expires_at, revoked_at, created_at';

export function toInvitation(row: InvitationRow): Invitation {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    profileId: row.profile_id,
    email: row.email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    acceptedAt: row.accepted_at,
  };
}

export function toTenant(row: TenantRow): TenantRecord {
  return {
    id: row.id,
    name: row.name,
    modelSource: row.model_source,
    webhookSecret: row.webhook_secret,
    createdAt: row.created_at,
  };
}

export function toActivity(row: Pick<ProfileRow, 'active' | 'active_until'>): {
  active: boolean;
  activeUntil: string | null;
} {
  return { active: row.active === 1, activeUntil: row.active_until };
}

export function toProfile(row: ProfileRow): UserProfile {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    issuer: row.issuer === '' ? null : row.issuer,
    subject: row.subject,
    email: row.email,
    role: storedTenantRole(row.role),
    extraRoles: JSON.parse(row.extra_roles) as string[],
    objectId: row.object_id,
    ...toActivity(row),
    createdAt: row.created_at,
  };
}

export function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    profileId: row.profile_id,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}
