/**
 * API keys and user profiles of a tenant over REST (docs/sign-in.md), admin only like all of
 * `/admin` (the admin role or a system key); the admin page's "Keys and profiles" view uses them,
 * as `odp key ...` and `odp profile ...` do from a shell.
 *
 * - `GET /admin/{tenant}/apiKeys`: every key, oldest first, with its state (valid, expired,
 *   revoked); never a value or a hash.
 * - `POST /admin/{tenant}/apiKeys` `{profileId?, expiresAt?}`: 201 with the key's value, shown this
 *   once (`Cache-Control: no-store`); without `profileId` a system key, which only a system key may
 *   make (it bypasses record-level access control, so a profile's admin role does not reach it).
 * - `DELETE /admin/{tenant}/apiKeys/{keyId}`: revokes it (idempotent); 404 for a key of no tenant's.
 * - `GET /admin/{tenant}/profiles`: every profile, with `activeNow`.
 * - `POST /admin/{tenant}/profiles` `{email, role, extraRoles?, objectId?, subject?, activeUntil?}`:
 *   201; without `subject` the profile signs in through its keys only.
 * - `PATCH /admin/{tenant}/profiles/{profileId}` `{active?, objectId?}`: suspend or re-activate,
 *   link to an object (its person), by the registry's link rule.
 */
import { Router } from 'express';
import type { Request } from 'express';
import { ForbiddenError, isProfileActive, TENANT_ROLES, ValidationError } from '@odp/core';
import type { ApiKeyRecord, TenantRole, UserProfile } from '@odp/core';
import { generateApiKey } from '@odp/auth';
import type { AppDeps } from '../app.js';
import { tenantRequest } from '../context.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_TEXT = 320;

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`${field} ${message}.`, [{ field, message }]);
}

/** The JSON object body, or 400. */
function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

function optionalText(body: Record<string, unknown>, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_TEXT) {
    throw invalid(field, `must be a non-empty string of at most ${MAX_TEXT} characters`);
  }
  return value.trim();
}

/** An object id, or an object URI ending in one (`/data/<tenant>/persons/<id>`). */
function objectIdOf(body: Record<string, unknown>): string | null {
  const text = optionalText(body, 'objectId');
  if (text === null) return null;
  const id = UUID.exec(text.toLowerCase())?.[0];
  if (id === undefined) throw invalid('objectId', 'must be an object id or URI');
  return id;
}

function keyView(key: ApiKeyRecord, now: Date): Record<string, unknown> {
  const state =
    key.revokedAt !== null
      ? 'revoked'
      : key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()
        ? 'expired'
        : 'valid';
  return {
    id: key.id,
    profileId: key.profileId,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    state,
  };
}

function profileView(profile: UserProfile, now: Date): Record<string, unknown> {
  return { ...profile, activeNow: isProfileActive(profile, now) };
}

export function adminAccessRoutes(deps: AppDeps): Router {
  const router = Router();
  const { registry } = deps;

  router.get('/admin/:tenant/apiKeys', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    const now = deps.now();
    res.json({ keys: (await registry.listApiKeys(tenantId)).map((key) => keyView(key, now)) });
  });
  router.post('/admin/:tenant/apiKeys', async (req, res) => {
    const { tenantId, account } = tenantRequest(res);
    const body = bodyOf(req);
    const profileId = optionalText(body, 'profileId');
    if (profileId === null && account.kind !== 'system') {
      throw new ForbiddenError('Only a system key may create a system key; name a profileId.');
    }
    const expires = optionalText(body, 'expiresAt');
    let expiresAt: string | null = null;
    if (expires !== null) {
      const time = Date.parse(expires);
      if (!/^\d{4}-\d{2}-\d{2}/.test(expires) || Number.isNaN(time)) {
        throw invalid('expiresAt', 'must be an ISO-8601 date or timestamp');
      }
      if (time <= deps.now().getTime()) throw invalid('expiresAt', 'must be in the future');
      expiresAt = new Date(time).toISOString();
    }
    const { key, hash } = generateApiKey();
    const record = await registry.createApiKey({ tenantId, profileId, expiresAt, keyHash: hash });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ ...keyView(record, deps.now()), key });
  });
  router.delete('/admin/:tenant/apiKeys/:keyId', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const record = await registry.revokeApiKey(tenantId, String(req.params['keyId']), deps.now());
    res.json(keyView(record, deps.now()));
  });

  router.get('/admin/:tenant/profiles', async (_req, res) => {
    const { tenantId } = tenantRequest(res);
    const now = deps.now();
    res.json({ profiles: (await registry.listProfiles(tenantId)).map((p) => profileView(p, now)) });
  });
  router.post('/admin/:tenant/profiles', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const body = bodyOf(req);
    const email = optionalText(body, 'email');
    if (email === null || !email.includes('@')) throw invalid('email', 'must be an e-mail address');
    const role = TENANT_ROLES.find((r) => r === body['role']);
    if (role === undefined) throw invalid('role', `must be one of ${TENANT_ROLES.join(', ')}`);
    const extraRoles = body['extraRoles'] ?? [];
    if (!Array.isArray(extraRoles) || !extraRoles.every((r) => typeof r === 'string' && r.trim() !== '')) {
      throw invalid('extraRoles', 'must be an array of role names');
    }
    const activeUntil = optionalText(body, 'activeUntil');
    if (activeUntil !== null && (!DATE.test(activeUntil) || Number.isNaN(Date.parse(activeUntil)))) {
      throw invalid('activeUntil', 'must be a date YYYY-MM-DD');
    }
    const subject = optionalText(body, 'subject');
    const profile = await registry.createProfile({
      tenantId,
      issuer: subject === null ? null : (deps.config.auth?.issuer ?? null),
      subject,
      email,
      role: role as TenantRole,
      extraRoles: extraRoles.map((r: string) => r.trim()),
      objectId: objectIdOf(body),
      activeUntil,
    });
    res.status(201).json(profileView(profile, deps.now()));
  });
  router.patch('/admin/:tenant/profiles/:profileId', async (req, res) => {
    const { tenantId } = tenantRequest(res);
    const profileId = String(req.params['profileId']);
    const body = bodyOf(req);
    const active = body['active'];
    if (active !== undefined && typeof active !== 'boolean') throw invalid('active', 'must be true or false');
    const objectId = objectIdOf(body);
    if (active === undefined && objectId === null) {
      throw invalid('body', 'must name active or objectId');
    }
    let profile = objectId === null ? null : await registry.linkProfile(tenantId, profileId, objectId);
    if (typeof active === 'boolean') profile = await registry.setProfileActive(tenantId, profileId, active);
    res.json(profileView(profile as UserProfile, deps.now()));
  });
  return router;
}
