/**
 * The writes of the object service on class names and ids: Create (optionally under a parent
 * object, as Create related does), Patch, Delete, Merge, batches of them and the stored secret
 * values. Each request is one unit of work, retried on a write conflict (see `withWriteRetries`);
 * the written object's id and BASIC class come back, never an address.
 */
import { AppError, NotFoundError, ValidationError, WriteConflictError, isAppError } from '@odp/core';
import type { Account, RelationEnd, StoredObject } from '@odp/core';
import { assertConcrete, inReach } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import { SECRET_CLASS, namedObject } from '../system-settings.js';
import { withWriteRetries } from '../unit-of-work.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { ObjectWriter } from '../writes/object-writer.js';
import { idempotencyRecord } from './keyed-writes.js';
import type { KeyedWrite } from './keyed-writes.js';
import type { ObjectReads } from './reads.js';
import { assertVersion } from './versions.js';
import type { IfMatch } from './versions.js';

const MAX_SECRET_NAME = 200;
const MAX_SECRET_VALUE = 65_536;

/** A written object: its id and BASIC class. */
export interface WrittenObject {
  readonly id: string;
  readonly basicClass: string;
}

/**
 * The existing object a create links the new object to (Create related): its id, the class it is
 * addressed as, and the relation as seen from it. It is read again on every attempt of the write.
 */
export interface CreateParent {
  readonly id: string;
  readonly className: string;
  readonly end: RelationEnd;
}

export interface CreateOptions {
  readonly parent?: CreateParent;
  /** The new object's id (default data); a new UUID when absent. */
  readonly id?: string;
}

/** The object a Patch, Delete or Merge addresses, and the version it requires. */
export interface ObjectTarget {
  readonly id: string;
  /** The class the object is addressed as (its plural in the path); any class when absent. */
  readonly className?: string;
  /** The versions the write requires the object to have (`If-Match`); any when absent. */
  readonly ifMatch?: IfMatch;
}

/** One write of a batch: a Create (related), a Patch or a Delete. */
export type WriteOperation =
  | {
      readonly kind: 'create';
      readonly className: string;
      readonly body: unknown;
      readonly parent?: CreateParent;
    }
  | { readonly kind: 'patch'; readonly target: ObjectTarget; readonly body: unknown }
  | { readonly kind: 'delete'; readonly target: ObjectTarget };

export class ObjectWrites {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly reads: ObjectReads,
    private readonly writer: ObjectWriter,
  ) {}

  /**
   * One unit of work planned by `plan` and written, retried on a write conflict; with `keyed`, its
   * batch also stores the record of the answer (IdempotencyKeyTakenError when the key is taken).
   */
  private unit<T>(plan: (uow: UnitOfWork) => Promise<T>, keyed?: KeyedWrite<T>): Promise<T> {
    return withWriteRetries(() =>
      this.writer.written(async (uow) => {
        const result = await plan(uow);
        if (keyed) uow.recordIdempotency(idempotencyRecord(keyed, result, uow.timestamp));
        return result;
      }),
    );
  }

  /**
   * Creates an object of class `className`: NotFoundError for a class this service does not reach,
   * 400 for an abstract or role class, 403 without the CREATE right. `keyed`: sent with an
   * `Idempotency-Key`.
   */
  create(
    account: Account,
    className: string,
    body: unknown,
    options: CreateOptions = {},
    keyed?: KeyedWrite<WrittenObject>,
  ): Promise<WrittenObject> {
    return this.unit((uow) => this.planCreate(uow, account, className, body, options), keyed);
  }

  private async planCreate(
    uow: UnitOfWork,
    account: Account,
    className: string,
    body: unknown,
    { parent, id }: CreateOptions,
  ): Promise<WrittenObject> {
    const cls = this.deps.model.classes.get(className);
    if (!inReach(cls, this.reads.reach)) throw new NotFoundError('Unknown class.');
    assertConcrete(cls);
    const anchor = parent ? await this.current(uow, account, parent) : undefined;
    const created = await this.writer.create(
      uow,
      account,
      cls,
      body,
      anchor && parent && { object: anchor, end: parent.end },
      id,
    );
    return { id: created, basicClass: cls.name };
  }

  /**
   * The object `target` addresses as the account sees it, in the version the unit of work holds
   * (with the changes of its earlier writes; NotFoundError when one deleted it), after checking the
   * stored version against `ifMatch` (PreconditionFailedError). The unit expects the stored version
   * when it writes, so the check holds atomically with the write.
   */
  private async current(uow: UnitOfWork, account: Account, target: ObjectTarget): Promise<StoredObject> {
    const stored = await this.reads.get(account, target.id, target.className);
    assertVersion(stored, target.ifMatch);
    uow.remember(stored);
    const object = await uow.load(stored.id);
    if (!object) throw new NotFoundError();
    return object;
  }

  /** Patches the object `target` addresses. */
  patch(account: Account, target: ObjectTarget, body: unknown): Promise<WrittenObject> {
    return this.unit((uow) => this.planPatch(uow, account, target, body));
  }

  private async planPatch(
    uow: UnitOfWork,
    account: Account,
    target: ObjectTarget,
    body: unknown,
  ): Promise<WrittenObject> {
    const object = await this.current(uow, account, target);
    await this.writer.patch(uow, account, object, body);
    return object;
  }

  /** Deletes the object `target` addresses by the Delete rules. */
  async remove(account: Account, target: ObjectTarget): Promise<void> {
    await this.unit((uow) => this.planRemove(uow, account, target));
  }

  private async planRemove(uow: UnitOfWork, account: Account, target: ObjectTarget): Promise<null> {
    await this.writer.remove(uow, account, await this.current(uow, account, target));
    return null;
  }

  /** Merges the body's `loser` into the object `target` addresses; resolves the winner. */
  merge(account: Account, target: ObjectTarget, body: unknown): Promise<WrittenObject> {
    return this.unit(async (uow) => {
      const winner = await this.current(uow, account, target);
      await this.writer.merge(uow, account, winner, body);
      return winner;
    });
  }

  /**
   * Plans `operations` in order into one unit of work and writes it: all of them or, when one
   * fails, none (an error names the failing operation's index in `operation`). Each goes through
   * the rules of the same write on its own; a later one sees the effects of the earlier ones on
   * the objects it addresses. Resolves, per operation, the written object (null for a delete).
   * `keyed`: sent with an `Idempotency-Key`.
   */
  batch(
    account: Account,
    operations: readonly WriteOperation[],
    keyed?: KeyedWrite<(WrittenObject | null)[]>,
  ): Promise<(WrittenObject | null)[]> {
    return this.unit(async (uow) => {
      const results: (WrittenObject | null)[] = [];
      for (const [index, operation] of operations.entries()) {
        results.push(await inOperation(index, () => this.plan(uow, account, operation)));
      }
      return results;
    }, keyed);
  }

  private plan(uow: UnitOfWork, account: Account, operation: WriteOperation): Promise<WrittenObject | null> {
    switch (operation.kind) {
      case 'create': {
        const options = operation.parent ? { parent: operation.parent } : {};
        return this.planCreate(uow, account, operation.className, operation.body, options);
      }
      case 'patch':
        return this.planPatch(uow, account, operation.target, operation.body);
      case 'delete':
        return this.planRemove(uow, account, operation.target);
    }
  }

  /**
   * Stores `{name, secretValue}` encrypted (a SECRET field) in the tenant's `system.secretValue` of
   * that name, replacing the value of an existing one; resolves whether it was created. The value
   * is never returned or put in an error; `systemSetting(name)` in gateway parameters reads it
   * decrypted. The caller checks the admin role.
   */
  async storeSecretValue(body: unknown): Promise<{ name: string; created: boolean; object: WrittenObject }> {
    const input =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : null;
    const name = input?.['name'];
    const secretValue = input?.['secretValue'];
    const errors: { field: string; message: string }[] = [];
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_SECRET_NAME) {
      errors.push({ field: 'name', message: `must be a text of 1 to ${MAX_SECRET_NAME} characters` });
    }
    if (typeof secretValue !== 'string' || secretValue === '' || secretValue.length > MAX_SECRET_VALUE) {
      errors.push({ field: 'secretValue', message: `must be a text of 1 to ${MAX_SECRET_VALUE} characters` });
    }
    if (errors.length > 0 || typeof name !== 'string')
      throw new ValidationError('Invalid secret value.', errors);
    const system: Account = { kind: 'system', tenantId: this.deps.tenantId };
    return withWriteRetries(async () => {
      const existing = await namedObject(this.deps.store, SECRET_CLASS, name.trim());
      if (existing) {
        await this.writer.written((uow) => this.writer.patch(uow, system, existing, { secretValue }));
        return { name: name.trim(), created: false, object: existing };
      }
      const cls = this.deps.model.classes.get(SECRET_CLASS);
      if (!cls) throw new NotFoundError('Unknown class.');
      const id = await this.writer.written((uow) =>
        this.writer.create(uow, system, cls, { name: name.trim(), secretValue }),
      );
      return { name: name.trim(), created: true, object: { id, basicClass: cls.name } };
    });
  }
}

/**
 * Runs operation `index` of a batch: its platform error comes back with the same code, message and
 * field errors, and `operation: index` (a write conflict passes unchanged: the batch is retried).
 */
export async function inOperation<T>(index: number, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isAppError(error) || error instanceof WriteConflictError) throw error;
    throw new AppError(error.code, `Operation ${index}: ${error.message}`, error.fieldErrors, {
      ...error.extra,
      operation: index,
    });
  }
}
