import { ForbiddenError } from '@odp/core';
import type { Account } from '@odp/core';

/** Path branches (first segment) open to the `admin` role only. */
export const ADMIN_BRANCHES: ReadonlySet<string> = new Set(['system', 'audit', 'admin']);
/** Methods that change data, refused to `viewer`. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The coarse tenant-role check, run before any data is reached. System accounts have no role and
 * pass (docs/sign-in.md). Throws ForbiddenError when the role does not allow the method or branch.
 */
export function assertRoleAllows(account: Account, method: string, branch: string): void {
  if (account.kind === 'system') return;
  if (ADMIN_BRANCHES.has(branch) && account.role !== 'admin') {
    throw new ForbiddenError(`The ${account.role} role has no access to /${branch}.`);
  }
  if (WRITE_METHODS.has(method.toUpperCase()) && account.role === 'viewer') {
    throw new ForbiddenError('The viewer role may only read.');
  }
}
