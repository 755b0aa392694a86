/**
 * The record-level access-control port: the decisions every data route and every capabilities
 * route asks, so that a capability answer is literally the decision the write enforces.
 * Implemented by `@odp/acl` (model-format section 10). The system account bypasses all of it;
 * a `viewer` is refused every mutating decision.
 */
import type { Account, AccessFilter, TenantRole } from './account.js';
import type { RelationEnd } from './model.js';
import type { AppliedWrite, StoredObject, WriteBatch } from './store.js';

/** A prospective parent of a create: the object and the relation side, as seen from the parent. */
export interface CreateParent {
  readonly object: StoredObject;
  readonly relation: RelationEnd;
}

export interface CreateCapability {
  readonly mayCreate: boolean;
  /** Qualified names of the concrete classes a create would succeed for; empty exactly when `mayCreate` is false. */
  readonly allowedClasses: readonly string[];
}

export interface AccessPolicy {
  /** The read filter to pass into every store read made for the account. */
  accessFilter(account: Account): Promise<AccessFilter>;
  /** Whether the account may read the object (the same set the access filter lets through). */
  mayRead(account: Account, object: StoredObject): Promise<boolean>;
  /** The model's WRITE on an object (PATCH, merge winner). */
  mayModify(account: Account, object: StoredObject): Promise<boolean>;
  /** The model's DELETE on an object. */
  mayDelete(account: Account, object: StoredObject): Promise<boolean>;
  /**
   * CREATE of `className` (qualified) or, when `className` is abstract or has subclasses, of its
   * concrete subclasses; optionally under a parent. `allowedClasses` lists what would succeed.
   */
  mayCreate(account: Account, className: string, parent?: CreateParent): Promise<CreateCapability>;
}

/** A user profile linked to a model object (the holder of an anchored grant). */
export interface LinkedProfile {
  readonly profileId: string;
  readonly role: TenantRole;
  readonly extraRoles: readonly string[];
}

/** The tenant's user profiles, as far as the audit needs them. Implemented over the platform store. */
export interface ProfileDirectory {
  /** Profiles of the tenant linked to `objectId`, oldest first (active or not). */
  profilesLinkedTo(objectId: string): Promise<readonly LinkedProfile[]>;
}

/**
 * The access-control step of a write (implemented by `@odp/acl`'s TenantAccessControl): the
 * record-level ACL rows and holdings a batch changes, which the writer hands to the store together
 * with the batch, in one atomic write.
 */
/** How the access rows of a write are derived. */
export interface AccessRowOptions {
  /**
   * Re-derive the ACL rows and holdings of every object the batch puts, also of those whose classes
   * and links it leaves as they are stored (a class sync after a model change). Without it, the
   * objects the batch creates or whose classes or links it changes are re-derived, and those its
   * changed links reach.
   */
  readonly rederivePuts?: boolean;
}

export interface AccessRowMaintenance {
  /**
   * Runs `write` once with `batch` completed by the ACL rows and holdings it changes (derived from
   * the stored state) and an `update` event for every other object whose ACL rows change (who may
   * read it changes although its values do not). Runs after every such write queued before it was
   * applied, so each derivation reads the state the previous write left; cached grants are dropped
   * once `write` resolves. When `write` resolves to an `AppliedWrite` (`TenantDocuments.applyWrite`),
   * the next derivation starts from the applied state without waiting for its commit, and the
   * promise returned resolves once the commit does. A batch that already carries ACL rows or
   * holdings is handed over as it is.
   */
  writeWithAccessRows(
    batch: WriteBatch,
    write: (complete: WriteBatch) => Promise<AppliedWrite | void>,
    options?: AccessRowOptions,
  ): Promise<void>;
}
