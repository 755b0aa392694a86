import { createHash, randomBytes } from 'node:crypto';

/**
 * Invitation tokens (the UserInvitation gateway): `odpi_` followed by 43 base64url characters (256
 * random bits), sent once in the invitation e-mail; only the SHA-256 hash is stored, and a token is
 * found by its hash when a person redeems it (`POST /invitations/{token}`).
 */
const TOKEN_PATTERN = /^odpi_[A-Za-z0-9_-]{43}$/;

export function generateInvitationToken(): { readonly token: string; readonly hash: string } {
  const token = `odpi_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a path segment has the shape of an invitation token (checked before any lookup). */
export function isWellFormedInvitationToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}
