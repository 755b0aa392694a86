/**
 * The READ / WRITE / DELETE / CREATE decisions of model-format section 10, for user accounts.
 * The system account is allowed everything; a `viewer` nothing that mutates; an object none of
 * whose classes is protected is governed by the tenant role alone.
 */
import { NotFoundError, UNRESTRICTED } from '@odp/core';
import type {
  AccessControlDef,
  AccessFilter,
  AccessPolicy,
  Account,
  AclNodeDef,
  AclOperation,
  ClassDef,
  CreateCapability,
  CreateParent,
  RoleDef,
  StoredObject,
  TenantAccessRows,
} from '@odp/core';
import type { AclDerivation } from './derive.js';
import type { AclGraph } from './graph.js';
import type { HeldAcIdCache } from './held-cache.js';
import { nodeSteps, hasClass, walkBackward } from './paths.js';

type UserAccount = Extract<Account, { kind: 'user' }>;

/** The model roles an account has: its tenant role and the extra roles its profile lists. */
export function rolesOf(roles: readonly RoleDef[], role: string, extraRoles: readonly string[]): RoleDef[] {
  return roles.filter((candidate) => candidate.name === role || extraRoles.includes(candidate.name));
}

/** Whether one of `roles` references `definition` with a grant that includes `operation`. */
export function roleAllows(roles: readonly RoleDef[], definition: string, operation: AclOperation): boolean {
  return roles.some((role) =>
    role.grants.some(
      (grant) =>
        grant.definition === definition &&
        (grant.operations === undefined || grant.operations.includes(operation)),
    ),
  );
}

export class AclPolicy implements AccessPolicy {
  private readonly nodes = new Map<string, AclNodeDef>();
  /**
   * Classes some node applies to. An object's classes include every ancestor, so an object of a
   * subclass is protected through the class its node names.
   */
  private readonly protectedClasses: ReadonlySet<string>;

  constructor(
    private readonly derivation: AclDerivation,
    private readonly store: Pick<TenantAccessRows, 'aclRowsOf'>,
    private readonly graph: AclGraph,
    private readonly held: HeldAcIdCache,
  ) {
    const protectedClasses = new Set<string>();
    for (const definition of derivation.model.accessControl) {
      for (const node of definition.nodes) {
        this.nodes.set(`${definition.name}\u0000${node.id}`, node);
        protectedClasses.add(node.appliesTo);
      }
    }
    this.protectedClasses = protectedClasses;
  }

  /** The node a stored row names, or undefined when the current model no longer has it. */
  nodeOf(definition: string, nodeId: string): AclNodeDef | undefined {
    return this.nodes.get(`${definition}\u0000${nodeId}`);
  }

  isProtected(classes: readonly string[]): boolean {
    return classes.some((name) => this.protectedClasses.has(name));
  }

  /** Every acId the account holds: anchored grants of its linked object, and path-less definitions of its roles. */
  async heldAcIds(account: UserAccount): Promise<Set<string>> {
    const roles = rolesOf(this.derivation.model.roles, account.role, account.extraRoles);
    const held = new Set(account.objectId === null ? [] : await this.held.acIdsHeldBy(account.objectId));
    for (const definition of this.derivation.pathless) {
      if (roles.some((role) => role.grants.some((grant) => grant.definition === definition.name))) {
        held.add(this.derivation.pathlessAcId(definition.name));
      }
    }
    return held;
  }

  /**
   * The filter lists as protected only the classes the account does not read in full: a class a
   * node of a held path-less definition applies to is left out, since every object of it carries
   * that definition's acId. The set it lets through is the same; the stores then check no ACL row
   * of such objects (a member holding `allInvoices` reads the invoices linking to a company without
   * a probe per invoice).
   */
  async accessFilter(account: Account): Promise<AccessFilter> {
    if (account.kind === 'system') return UNRESTRICTED;
    const held = await this.heldAcIds(account);
    const readInFull = new Set<string>();
    for (const definition of this.derivation.pathless) {
      if (!held.has(this.derivation.pathlessAcId(definition.name))) continue;
      for (const node of definition.nodes) readInFull.add(node.appliesTo);
    }
    return {
      kind: 'acl',
      protectedClasses: [...this.protectedClasses].filter((name) => !readInFull.has(name)),
      acIds: [...held],
    };
  }

  async mayRead(account: Account, object: StoredObject): Promise<boolean> {
    if (account.kind === 'system' || !this.isProtected(object.classes)) return true;
    const held = await this.heldAcIds(account);
    return (await this.store.aclRowsOf(object.id)).some((row) => held.has(row.acId));
  }

  mayModify(account: Account, object: StoredObject): Promise<boolean> {
    return this.mayChange(account, object, 'WRITE');
  }

  mayDelete(account: Account, object: StoredObject): Promise<boolean> {
    return this.mayChange(account, object, 'DELETE');
  }

  private async mayChange(account: Account, object: StoredObject, operation: AclOperation): Promise<boolean> {
    if (account.kind === 'system') return true;
    if (account.role === 'viewer') return false;
    if (!this.isProtected(object.classes)) return true;
    const roles = rolesOf(this.derivation.model.roles, account.role, account.extraRoles);
    const held = await this.heldAcIds(account);
    return (await this.store.aclRowsOf(object.id)).some(
      (row) =>
        held.has(row.acId) &&
        this.nodeOf(row.definition, row.nodeId)?.operations.includes(operation) === true &&
        roleAllows(roles, row.definition, operation),
    );
  }

  async mayCreate(account: Account, className: string, parent?: CreateParent): Promise<CreateCapability> {
    const { model } = this.derivation;
    const requested = model.classes.get(className);
    if (!requested) throw new NotFoundError(`Unknown class ${className}.`);
    const candidates = requested.descendants
      .map((name) => model.classes.get(name))
      .filter((cls): cls is ClassDef => cls !== undefined && !cls.abstract && cls.attachableTo === null);
    const allowedClasses: string[] = [];
    for (const cls of candidates) {
      if (await this.mayCreateClass(account, cls, parent)) allowedClasses.push(cls.name);
    }
    return { mayCreate: allowedClasses.length > 0, allowedClasses };
  }

  private async mayCreateClass(
    account: Account,
    cls: ClassDef,
    parent: CreateParent | undefined,
  ): Promise<boolean> {
    if (account.kind === 'system') return true;
    if (account.role === 'viewer') return false;
    if (!this.isProtected(cls.ancestors)) return true;
    const roles = rolesOf(this.derivation.model.roles, account.role, account.extraRoles);
    const allows = (definition: AccessControlDef, node: AclNodeDef): boolean =>
      cls.ancestors.includes(node.appliesTo) &&
      node.operations.includes('CREATE') &&
      roleAllows(roles, definition.name, 'CREATE');

    const rootAllows =
      this.derivation.pathless.some((definition) =>
        definition.nodes.some((node) => allows(definition, node)),
      ) ||
      this.derivation.anchored.some((definition) =>
        definition.nodes.some((node) => (node.steps ?? []).length === 0 && allows(definition, node)),
      );
    if (rootAllows || !parent) return rootAllows;

    const held = await this.heldAcIds(account);
    for (const definition of this.derivation.anchored) {
      for (const node of definition.nodes) {
        const steps = nodeSteps(definition, node);
        const last = steps[steps.length - 1];
        if (
          !last ||
          last.end.relation.key !== parent.relation.relation.key ||
          last.end.direction !== parent.relation.direction ||
          !allows(definition, node) ||
          !hasClass(parent.object, last.fromClass)
        ) {
          continue;
        }
        const anchors = await walkBackward(this.graph, [parent.object], steps.slice(0, -1));
        if (
          anchors.some(
            (anchor) =>
              hasClass(anchor, definition.anchor) &&
              held.has(this.derivation.anchoredAcId(definition.name, anchor.id)),
          )
        ) {
          return true;
        }
      }
    }
    return false;
  }
}
