/**
 * Claims of the MongoDB tenant store, which keep two concurrent writers apart with or without
 * transactions: a claim on the version of an object a writer read (`WriteBatch.expect`), and a
 * claim on each value of a `unique` field (see `ClaimDoc`).
 */
import { WriteConflictError, refuseUniqueValue, uniqueValuesOf } from '@odp/core';
import type { IndexKey, StoredObject, WriteExpectation } from '@odp/core';
import type { AppliedModel } from './applied-model.js';
import { CLAIM_GRACE_MS } from './collections.js';
import { isDuplicateKey } from '../server-errors.js';
import type { Session, TenantCollections } from './collections.js';
import { comparable, fieldPath } from './documents.js';

export class UniqueClaims {
  constructor(
    private readonly c: TenantCollections,
    private readonly model: AppliedModel,
  ) {}

  /**
   * Takes the version claims of the batch's expectations (see `VersionClaimDoc`) and resolves their
   * ids; WriteConflictError (releasing those taken) when another writer holds one. A claim older
   * than `CLAIM_GRACE_MS` was left behind by a writer that died and is taken over. Held only while
   * the batch is applied: `write` releases them, and the object then no longer carries the version
   * (a writer claiming it afterwards fails `checkExpectations`).
   */
  async claimVersions(expect: readonly WriteExpectation[]): Promise<string[]> {
    const held: string[] = [];
    const claims = new Map(expect.map((entry) => [`${entry.id}\u0000${entry.modifiedAt ?? ''}`, entry.id]));
    try {
      for (const [id, objectId] of claims) {
        for (let attempt = 0; ; attempt += 1) {
          try {
            await this.c.versionClaims.insertOne({ _id: id, at: new Date() });
            held.push(id);
            break;
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
            const claim = await this.c.versionClaims.findOne({ _id: id });
            const stale = claim !== null && claim.at.getTime() < Date.now() - CLAIM_GRACE_MS;
            if (attempt > 0 || (claim !== null && !stale)) {
              throw new WriteConflictError(objectId);
            }
            if (claim !== null) await this.c.versionClaims.deleteOne({ _id: id, at: claim.at });
          }
        }
      }
      return held;
    } catch (error) {
      if (held.length > 0) await this.c.versionClaims.deleteMany({ _id: { $in: held } });
      throw error;
    }
  }

  /** Releases the version claims `claimVersions` took. */
  async releaseVersions(held: readonly string[]): Promise<void> {
    if (held.length > 0) await this.c.versionClaims.deleteMany({ _id: { $in: [...held] } });
  }

  /**
   * ConflictError when a put's `unique` field value (`uniqueValuesOf`) would be shared within the
   * field's declaring class (subclasses included), with a stored object that stays or another put
   * of the batch.
   * Resolves the claims the puts need (claim id -> object id).
   */
  async checkUnique(
    puts: readonly StoredObject[],
    deletes: ReadonlySet<string>,
    session: Session,
  ): Promise<Map<string, Claim>> {
    const replaced = [...new Set([...puts.map((object) => object.id), ...deletes])];
    const claims = new Map<string, Claim>();
    for (const object of puts) {
      for (const unique of uniqueValuesOf(this.model.current, object.classes, object.values)) {
        const field = unique.field;
        const keys = unique.keys.map(comparable);
        for (const key of keys) {
          const id = `${fieldPath(field)}\u0000${JSON.stringify(key)}`;
          const claimed = claims.get(id);
          if (claimed !== undefined && claimed.owner !== object.id) refuseUniqueValue(field.name);
          claims.set(id, { owner: object.id, path: fieldPath(field), key, fieldName: field.name });
        }
        if (keys.length === 0) continue;
        const clash = await this.c.objects.countDocuments(
          { classes: field.declaredOn, [fieldPath(field)]: { $in: keys }, _id: { $nin: replaced } },
          { ...session, limit: 1 },
        );
        if (clash > 0) refuseUniqueValue(field.name);
      }
    }
    return claims;
  }

  /**
   * Takes the claims of the batch's unique values (see `ClaimDoc`), so that two concurrent batches
   * never both store one value, with or without transactions. A claim held by another object is
   * taken over only when that object is replaced or deleted by this batch, or when it does not hold
   * the value and the claim is older than `CLAIM_GRACE_MS` (left behind); otherwise ConflictError.
   */
  async claimUnique(
    claims: ReadonlyMap<string, Claim>,
    released: ReadonlySet<string>,
    session: Session,
  ): Promise<void> {
    for (const [id, claim] of claims) {
      for (let attempt = 0; ; attempt += 1) {
        if (attempt === 3) refuseUniqueValue(claim.fieldName);
        const held = await this.c.claims.findOne({ _id: id }, session);
        if (held === null) {
          try {
            await this.c.claims.insertOne({ _id: id, owner: claim.owner, at: new Date() }, session);
            break;
          } catch (error) {
            if (isDuplicateKey(error)) continue;
            throw error;
          }
        }
        if (held.owner === claim.owner) break;
        const stale =
          released.has(held.owner) ||
          (held.at.getTime() < Date.now() - CLAIM_GRACE_MS &&
            (await this.c.objects.countDocuments(
              { _id: held.owner, [claim.path]: claim.key },
              { ...session, limit: 1 },
            )) === 0);
        if (!stale) refuseUniqueValue(claim.fieldName);
        const taken = await this.c.claims.updateOne(
          { _id: id, owner: held.owner },
          { $set: { owner: claim.owner, at: new Date() } },
          session,
        );
        if (taken.matchedCount === 1) break;
      }
    }
  }

  /** Drops the claims of values the batch's objects no longer hold (changed or deleted). */
  async releaseClaims(
    puts: readonly StoredObject[],
    claims: ReadonlyMap<string, Claim>,
    deletes: ReadonlySet<string>,
    session: Session,
  ): Promise<void> {
    const kept = new Map<string, string[]>();
    for (const [id, claim] of claims) kept.set(claim.owner, [...(kept.get(claim.owner) ?? []), id]);
    for (const object of puts) {
      await this.c.claims.deleteMany({ owner: object.id, _id: { $nin: kept.get(object.id) ?? [] } }, session);
    }
    if (deletes.size > 0) await this.c.claims.deleteMany({ owner: { $in: [...deletes] } }, session);
  }
}

/** A unique value a put needs: its owner, and the field path and folded key it is held under. */
export interface Claim {
  readonly owner: string;
  readonly path: string;
  readonly key: IndexKey;
  readonly fieldName: string;
}
