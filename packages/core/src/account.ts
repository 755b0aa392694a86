/** Who a request runs as, once authentication has resolved its credential. */

export const TENANT_ROLES = ['admin', 'member', 'viewer'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];

/** The role a registry stored as text; an unknown one means a damaged registry, not bad input. */
export function storedTenantRole(role: string): TenantRole {
  const known = TENANT_ROLES.find((r) => r === role);
  if (known === undefined) throw new Error('A stored profile has an unknown role.');
  return known;
}

export type Account =
  /** A system API key: no role, no record-level access control. */
  | { readonly kind: 'system'; readonly tenantId: string }
  /** A user profile, reached through a signed-in token or a user-bound API key. */
  | {
      readonly kind: 'user';
      readonly tenantId: string;
      readonly profileId: string;
      readonly role: TenantRole;
      /** Extra role names the profile lists (model roles beyond the tenant role). */
      readonly extraRoles: readonly string[];
      /** Id of the model object the profile is linked to (ordinarily a person), if any. */
      readonly objectId: string | null;
      readonly email: string;
    };

/**
 * Which objects a read may see; passed *into* every store read so that filtering happens in the
 * query itself (paging, distinct values, aggregations and search all see the same set).
 *
 * - `all`: no record-level restriction (the system account).
 * - `acl`: an object is visible when none of its classes is in `protectedClasses`, or when it
 *   carries an ACL row whose acId is in `acIds`.
 */
export type AccessFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'acl'; readonly protectedClasses: readonly string[]; readonly acIds: readonly string[] };

export const UNRESTRICTED: AccessFilter = { kind: 'all' };
