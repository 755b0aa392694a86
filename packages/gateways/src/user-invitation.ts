/**
 * The UserInvitation gateway (interface spec, Gateway `UserInvitation`): gives a person access to
 * the tenant. By the profile the tenant has for the `email` (found case-insensitively):
 *
 * | profile | effect |
 * |---|---|
 * | none | a profile is created (role `role`, default `member`; linked to `personRef`); an invitation is stored and e-mailed |
 * | exists, no active access | the person object is linked; names updated; an invitation is stored and e-mailed |
 * | exists with active access | the person object is linked; names updated; no invitation, no e-mail |
 *
 * The person object of a profile someone signed in with (an identity, active or suspended) is never
 * changed (`mayLinkProfile` of `@odp/core`): a run whose `personRef` is another object (or links an
 * unlinked one) fails without retry before any change. People are identified by (iss, sub), never
 * by an e-mail address, and the person object carries record access.
 *
 * A profile has active access when it is active now (not suspended, `activeUntil` not passed) and
 * belongs to a person who can sign in (it has an identity: an accepted invitation or a profile
 * created for a known person). `role` is used only to create a profile; an existing profile keeps
 * its role. `firstName` and `lastName`, when given, are written to the `personRef` object.
 *
 * The invitation e-mail carries a one-time token (link `<ODP_BASE_URL>/invitations/<token>`, valid
 * for {@link INVITATION_VALIDITY_MS}); the platform stores only its hash. A person signed in
 * through the identity provider redeems it with `POST /invitations/<token>` and becomes the
 * profile's person. Bad parameters fail without retry; the e-mail's failures are the Mail
 * gateway's (a run after a transient failure finds the profile and invites again).
 */
import type { Invitation, NewProfile, PlatformRegistry, TenantRole, UserProfile } from '@odp/core';
import { ConflictError, isProfileActive, mayLinkProfile, TENANT_ROLES } from '@odp/core';
import type { GatewayCall } from './gateway.js';
import { GatewayError } from './gateway.js';
import { EMAIL } from './mail.js';

const LINK_REFUSED =
  'The profile of this address belongs to a person who signed in: an invitation does not change its person object (personRef).';

/** How long an invitation can be redeemed: 14 days. */
export const INVITATION_VALIDITY_MS = 14 * 86_400_000;

/** What the gateway did: created a profile, invited an existing one, or only linked it. */
export type InvitationOutcome = 'created' | 'invited' | 'linked';

/** The object a `personRef` names: `/persons/<uuid>` or a full href `/data/<tenant>/persons/<uuid>`. */
export interface PersonRef {
  readonly typeName: string;
  readonly id: string;
}

export interface UserInvitationDeps {
  readonly registry: Pick<
    PlatformRegistry,
    'getTenant' | 'findProfileByEmail' | 'createProfile' | 'linkProfile' | 'createInvitation'
  >;
  /**
   * Writes the names given (possibly none) to the person object of the tenant; false when the
   * object does not exist.
   */
  readonly updatePerson: (
    tenantId: string,
    person: PersonRef,
    names: { firstName?: string; lastName?: string },
  ) => Promise<boolean>;
  /** A fresh token and its hash (`generateInvitationToken` of `@odp/auth`). */
  readonly newToken: () => { readonly token: string; readonly hash: string };
  readonly baseUrl: string;
  readonly now: () => Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The object a `personRef` names, or GatewayError (not retryable) for another shape. */
export function parsePersonRef(raw: string, tenantId: string): PersonRef {
  const segments = raw.split('/');
  const match =
    segments.length === 3 && segments[0] === ''
      ? segments
      : segments.length === 5 && segments[0] === '' && segments[1] === 'data' && segments[2] === tenantId
        ? ['', segments[3], segments[4]]
        : null;
  const [, typeName = '', id = ''] = match ?? [];
  if (match === null || typeName === '' || !UUID.test(id)) {
    throw new GatewayError('The invitation parameter personRef must look like /persons/<uuid>.', false);
  }
  return { typeName, id: id.toLowerCase() };
}

export class UserInvitationGateway {
  constructor(private readonly deps: UserInvitationDeps) {}

  /** Runs the call; `sendMail` sends the invitation e-mail (through the Mail gateway, metered). */
  async invite(
    call: GatewayCall,
    sendMail: (call: GatewayCall) => Promise<unknown>,
  ): Promise<InvitationOutcome> {
    const { registry, now } = this.deps;
    const request = this.parameters(call);
    const tenant = await registry.getTenant(call.tenantId);
    if (tenant === null) throw new GatewayError('The tenant no longer exists.', false);
    const existing = await registry.findProfileByEmail(call.tenantId, request.email);
    // Checked before any change: a refused run writes nothing (no names, no link, no invitation).
    if (existing !== null && request.person !== null && !mayLinkProfile(existing, request.person.id))
      throw new GatewayError(LINK_REFUSED, false);
    if (request.person !== null) {
      const found = await this.deps.updatePerson(call.tenantId, request.person, request.names);
      if (!found) throw new GatewayError('The invitation parameter personRef names no object.', false);
    }
    let profile: UserProfile;
    if (existing === null) {
      const input: NewProfile = {
        tenantId: call.tenantId,
        issuer: null,
        subject: null,
        email: request.email,
        role: request.role ?? 'member',
        objectId: request.person?.id ?? null,
      };
      profile = await registry.createProfile(input);
    } else {
      profile =
        request.person !== null && existing.objectId !== request.person.id
          ? await this.link(existing, request.person.id)
          : existing;
      if (hasActiveAccess(profile, now())) return 'linked';
    }
    await this.sendInvitation(call, tenant.name, profile, request.names.firstName, sendMail);
    return existing === null ? 'created' : 'invited';
  }

  /** Links the profile; the registry refuses (ConflictError) when someone signed in with it meanwhile. */
  private async link(profile: UserProfile, objectId: string): Promise<UserProfile> {
    try {
      return await this.deps.registry.linkProfile(profile.tenantId, profile.id, objectId);
    } catch (error) {
      if (error instanceof ConflictError) throw new GatewayError(LINK_REFUSED, false);
      throw error;
    }
  }

  private parameters(call: GatewayCall) {
    const text = (name: string) => call.parameters[name]?.trim() || undefined;
    const email = text('email') ?? '';
    if (!EMAIL.test(email)) {
      throw new GatewayError('The invitation parameter email is missing or not an e-mail address.', false);
    }
    const role = text('role');
    if (role !== undefined && !(TENANT_ROLES as readonly string[]).includes(role)) {
      throw new GatewayError(
        `The invitation parameter role must be one of ${TENANT_ROLES.join(', ')}.`,
        false,
      );
    }
    const personRef = text('personRef');
    const firstName = text('firstName');
    const lastName = text('lastName');
    return {
      email,
      role: role as TenantRole | undefined,
      person: personRef === undefined ? null : parsePersonRef(personRef, call.tenantId),
      names: { ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) },
    };
  }

  private async sendInvitation(
    call: GatewayCall,
    tenantName: string,
    profile: UserProfile,
    firstName: string | undefined,
    sendMail: (call: GatewayCall) => Promise<unknown>,
  ): Promise<Invitation> {
    const { token, hash } = this.deps.newToken();
    const invitation = await this.deps.registry.createInvitation({
      tenantId: call.tenantId,
      profileId: profile.id,
      tokenHash: hash,
      expiresAt: new Date(this.deps.now().getTime() + INVITATION_VALIDITY_MS).toISOString(),
    });
    // A text body (the Mail gateway escapes it for the HTML part): names are data, never markup.
    const greeting = firstName ? `Hello ${firstName},` : 'Hello,';
    await sendMail({
      id: call.id,
      tenantId: call.tenantId,
      reference: call.reference ?? null,
      parameters: {
        to: profile.email,
        subject: `You are invited to ${tenantName}`,
        body:
          `${greeting}\n\nYou are invited to ${tenantName} as ${profile.role}. ` +
          `Sign in and accept the invitation before ${invitation.expiresAt.slice(0, 10)}.`,
        ctaHref: `${this.deps.baseUrl}/invitations/${token}`,
        ctaName: 'Accept the invitation',
      },
    });
    return invitation;
  }
}

/** Active now, and reachable by a person who signs in (an identity is bound to it). */
export function hasActiveAccess(profile: UserProfile, now: Date): boolean {
  return isProfileActive(profile, now) && profile.subject !== null;
}
