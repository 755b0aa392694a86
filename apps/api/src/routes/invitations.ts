/**
 * `POST /invitations/{token}` (the UserInvitation gateway, docs/worker.md): a person signed in
 * through the identity provider redeems the invitation e-mailed to them. The invited profile
 * becomes theirs (their `iss` and `sub`) and active; 200 with `{tenantId, profileId, role}`.
 * API keys are refused (401) like on every route without a tenant segment. 404 for a token that is
 * unknown, expired or already used (one body for every case); 409 when the profile belongs to
 * another person or the person already has another profile in the tenant.
 */
import { Router } from 'express';
import { hashInvitationToken, isWellFormedInvitationToken } from '@odp/auth';
import { NotFoundError } from '@odp/core';
import type { AppDeps } from '../app.js';
import { signedInPerson } from '../context.js';

export function invitationRoutes(deps: AppDeps): Router {
  const router = Router({ caseSensitive: true });
  router.post('/invitations/:token', async (req, res) => {
    const person = signedInPerson(res);
    const token = req.params['token'] ?? '';
    if (!isWellFormedInvitationToken(token)) {
      throw new NotFoundError('No such invitation, or it has expired or was used.');
    }
    const profile = await deps.registry.acceptInvitation(
      hashInvitationToken(token),
      person.issuer,
      person.subject,
      deps.now(),
    );
    deps.log.info('invitation accepted', { tenantId: profile.tenantId, profileId: profile.id });
    res.status(200).json({ tenantId: profile.tenantId, profileId: profile.id, role: profile.role });
  });
  return router;
}
