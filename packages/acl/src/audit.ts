/**
 * The audit reports of the interface spec ("Audit response shapes"): who can reach one record, and
 * what the model's definitions resolve to in the stored data.
 */
import { UNRESTRICTED } from '@odp/core';
import type {
  AclOperation,
  AclRow,
  ProfileDirectory,
  RelationEnd,
  RoleDef,
  StoredObject,
  TenantAccessRows,
  TenantDocuments,
} from '@odp/core';
import type { AclPolicy } from './decisions.js';
import { rolesOf } from './decisions.js';
import type { AclDerivation } from './derive.js';
import { isAnchored } from './derive.js';
import { grantSteps, nodeSteps } from './paths.js';
import type { PathStep } from './paths.js';

const OPERATION_ORDER: readonly AclOperation[] = ['READ', 'WRITE', 'CREATE', 'DELETE'];

export interface AuditHolder {
  readonly holderId: string;
  readonly holderName: string | null;
  readonly accountId: string | null;
  readonly stepPath: readonly string[];
  readonly hasRole: boolean;
  readonly roles: readonly string[];
}

export interface AuditGrant {
  readonly definition: string;
  readonly acId: string;
  readonly nodeId: string;
  readonly nodeClass: string;
  readonly objectAllows: readonly AclOperation[];
  readonly roles: readonly { readonly role: string; readonly roleGrants?: readonly AclOperation[] }[];
  readonly holders?: readonly AuditHolder[];
}

export interface RecordAccessReport {
  readonly grants: readonly AuditGrant[];
  /** Rows whose node the current model no longer has: they grant READ only, until a rebuild. */
  readonly unresolved: readonly AclRow[];
}

export interface RelationPair {
  readonly relation: string;
  readonly from: string;
  readonly to: string;
  /** Stored links of the relation. */
  readonly count: number;
}

export interface NodeReport {
  readonly id: string;
  /** Anchored nodes only: relation names from the anchor. */
  readonly path?: readonly string[];
  /** Anchored nodes: the class the path ends on. */
  readonly relatedClass?: string;
  /** Path-less nodes: the class the node applies to. */
  readonly class?: string;
  readonly operations: readonly AclOperation[];
  readonly relations: readonly RelationPair[];
}

export interface DefinitionReport {
  readonly name: string;
  readonly anchor: string | null;
  readonly grantToUsers: readonly (RelationPair & { readonly id: string })[];
  readonly nodes: readonly NodeReport[];
}

export interface AccessControlReport {
  readonly definitions: readonly DefinitionReport[];
  readonly orphanedNodeIds: readonly string[];
  readonly orphanedStepIds: readonly string[];
}

export function sortOperations(operations: readonly AclOperation[]): AclOperation[] {
  return OPERATION_ORDER.filter((operation) => operations.includes(operation));
}

/** The roles referencing `definition`, with `roleGrants` only where the grant narrows what the definition allows. */
function definitionRoles(
  roles: readonly RoleDef[],
  definition: string,
  allowed: readonly AclOperation[],
): AuditGrant['roles'] {
  return roles.flatMap((role) =>
    role.grants
      .filter((grant) => grant.definition === definition)
      .map((grant) =>
        grant.operations !== undefined && !allowed.every((operation) => grant.operations?.includes(operation))
          ? { role: role.name, roleGrants: sortOperations(grant.operations) }
          : { role: role.name },
      ),
  );
}

export async function recordAccessReport(
  derivation: AclDerivation,
  policy: AclPolicy,
  store: Pick<TenantAccessRows, 'aclRowsOf' | 'holdingsOfAcId'> & Pick<TenantDocuments, 'getMany'>,
  profiles: ProfileDirectory,
  object: StoredObject,
): Promise<RecordAccessReport> {
  const { model } = derivation;
  const grants: AuditGrant[] = [];
  const unresolved: AclRow[] = [];
  for (const row of await store.aclRowsOf(object.id)) {
    const definition = model.accessControl.find((candidate) => candidate.name === row.definition);
    const node = policy.nodeOf(row.definition, row.nodeId);
    if (!definition || !node) {
      unresolved.push(row);
      continue;
    }
    const allowed = sortOperations(definition.nodes.flatMap((candidate) => candidate.operations));
    const grant: AuditGrant = {
      definition: row.definition,
      acId: row.acId,
      nodeId: row.nodeId,
      nodeClass: node.appliesTo,
      objectAllows: sortOperations(node.operations),
      roles: definitionRoles(model.roles, row.definition, allowed),
    };
    grants.push(
      isAnchored(definition)
        ? { ...grant, holders: await holdersOf(derivation, store, profiles, row) }
        : grant,
    );
  }
  return { grants, unresolved };
}

async function holdersOf(
  derivation: AclDerivation,
  store: Pick<TenantAccessRows, 'holdingsOfAcId'> & Pick<TenantDocuments, 'getMany'>,
  profiles: ProfileDirectory,
  row: AclRow,
): Promise<AuditHolder[]> {
  const holdings = await store.holdingsOfAcId(row.acId);
  const names = new Map(
    (await store.getMany([...new Set(holdings.map((holding) => holding.holderId))], UNRESTRICTED)).map(
      (holder) => [holder.id, holder.name],
    ),
  );
  const holders: AuditHolder[] = [];
  for (const holding of holdings) {
    const profile = (await profiles.profilesLinkedTo(holding.holderId))[0];
    const roles = profile
      ? rolesOf(derivation.model.roles, profile.role, profile.extraRoles)
          .filter((role) => role.grants.some((grant) => grant.definition === row.definition))
          .map((role) => role.name)
      : [];
    holders.push({
      holderId: holding.holderId,
      holderName: names.get(holding.holderId) ?? null,
      accountId: profile?.profileId ?? null,
      stepPath: holding.stepIds,
      hasRole: roles.length > 0,
      roles,
    });
  }
  return holders;
}

export async function accessControlReport(
  derivation: AclDerivation,
  store: Pick<TenantDocuments, 'distinct'> & Pick<TenantAccessRows, 'storedAclIds'>,
): Promise<AccessControlReport> {
  const counts = new Map<string, Promise<number>>();
  const linkCount = (end: RelationEnd): Promise<number> => {
    const { key, declaredOn } = end.relation;
    let count = counts.get(key);
    if (!count) {
      count = store
        .distinct(
          {
            className: declaredOn,
            filters: [],
            target: { kind: 'relation', relation: { key, direction: 'forward' } },
            order: 'value',
          },
          UNRESTRICTED,
        )
        .then((buckets) =>
          buckets.reduce((sum, bucket) => (bucket.value === null ? sum : sum + bucket.count), 0),
        );
      counts.set(key, count);
    }
    return count;
  };
  const pairs = <T extends PathStep>(
    steps: readonly T[],
  ): Promise<(RelationPair & Omit<T, keyof PathStep>)[]> =>
    Promise.all(
      steps.map(async ({ end, fromClass, toClass, ...rest }) => ({
        ...rest,
        relation: end.name,
        from: fromClass,
        to: toClass,
        count: await linkCount(end),
      })),
    );

  const definitions: DefinitionReport[] = [];
  for (const definition of derivation.model.accessControl) {
    if (isAnchored(definition)) {
      const grantPairs = await pairs(grantSteps(definition));
      definitions.push({
        name: definition.name,
        anchor: definition.anchor,
        grantToUsers: grantPairs,
        nodes: await Promise.all(
          definition.nodes.map(async (node) => ({
            id: node.id,
            path: node.path ?? [],
            relatedClass: node.appliesTo,
            operations: sortOperations(node.operations),
            relations: await pairs(nodeSteps(definition, node)),
          })),
        ),
      });
    } else {
      definitions.push({
        name: definition.name,
        anchor: null,
        grantToUsers: [],
        nodes: definition.nodes.map((node) => ({
          id: node.id,
          class: node.appliesTo,
          operations: sortOperations(node.operations),
          relations: [],
        })),
      });
    }
  }
  const nodeIds = new Set(
    derivation.model.accessControl.flatMap((definition) => definition.nodes.map((node) => node.id)),
  );
  const stepIds = new Set(
    derivation.model.accessControl.flatMap((definition) => definition.grantToUsers.map((step) => step.id)),
  );
  const stored = await store.storedAclIds();
  return {
    definitions,
    orphanedNodeIds: stored.nodeIds.filter((id) => !nodeIds.has(id)).sort(),
    orphanedStepIds: stored.stepIds.filter((id) => !stepIds.has(id)).sort(),
  };
}
