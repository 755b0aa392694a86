/**
 * The writes of the object service on class names and ids: Create (optionally under a parent
 * object, as Create related does), Patch, Delete, Merge and the stored secret values. Each is one
 * unit of work, retried on a write conflict (see `withWriteRetries`); the written object's id and
 * BASIC class come back, never an address.
 */
import { NotFoundError, ValidationError } from '@odp/core';
import type { Account, RelationEnd } from '@odp/core';
import { assertConcrete, inReach } from '../classes.js';
import type { DataServiceDeps } from '../deps.js';
import { SECRET_CLASS, namedObject } from '../system-settings.js';
import { withWriteRetries } from '../unit-of-work.js';
import type { ObjectWriter } from '../writes/object-writer.js';
import type { ObjectReads } from './reads.js';

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

export class ObjectWrites {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly reads: ObjectReads,
    private readonly writer: ObjectWriter,
  ) {}

  /**
   * Creates an object of class `className`: NotFoundError for a class this service does not reach,
   * 400 for an abstract or role class, 403 without the CREATE right.
   */
  async create(
    account: Account,
    className: string,
    body: unknown,
    options: CreateOptions = {},
  ): Promise<WrittenObject> {
    const cls = this.deps.model.classes.get(className);
    if (!inReach(cls, this.reads.reach)) throw new NotFoundError('Unknown class.');
    assertConcrete(cls);
    const { parent, id } = options;
    const created = await withWriteRetries(async () => {
      const anchor = parent ? await this.reads.get(account, parent.id, parent.className) : undefined;
      return this.writer.create(
        account,
        cls,
        body,
        anchor && parent && { object: anchor, end: parent.end },
        id,
      );
    });
    return { id: created, basicClass: cls.name };
  }

  /** Patches object `id` (as class `className` addresses it, when given). */
  async patch(account: Account, id: string, body: unknown, className?: string): Promise<WrittenObject> {
    return withWriteRetries(async () => {
      const object = await this.reads.get(account, id, className);
      await this.writer.patch(account, object, body);
      return object;
    });
  }

  /** Deletes object `id` (as class `className` addresses it, when given) by the Delete rules. */
  async remove(account: Account, id: string, className?: string): Promise<void> {
    await withWriteRetries(async () =>
      this.writer.remove(account, await this.reads.get(account, id, className)),
    );
  }

  /** Merges the body's `loser` into object `id`; resolves the winner. */
  async merge(account: Account, id: string, body: unknown, className?: string): Promise<WrittenObject> {
    return withWriteRetries(async () => {
      const winner = await this.reads.get(account, id, className);
      await this.writer.merge(account, winner, body);
      return winner;
    });
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
        await this.writer.patch(system, existing, { secretValue });
        return { name: name.trim(), created: false, object: existing };
      }
      const cls = this.deps.model.classes.get(SECRET_CLASS);
      if (!cls) throw new NotFoundError('Unknown class.');
      const id = await this.writer.create(system, cls, { name: name.trim(), secretValue });
      return { name: name.trim(), created: true, object: { id, basicClass: cls.name } };
    });
  }
}
