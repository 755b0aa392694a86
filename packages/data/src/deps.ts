import type { AccessPolicy, JobQueue, Model, SearchIndex, TenantStore } from '@odp/core';
import type { SecretCipher } from './secret-cipher.js';

/** Everything the object service of one tenant works with. */
export interface DataServiceDeps {
  readonly tenantId: string;
  readonly model: Model;
  /**
   * The tenant's store; with record-level access control, the `@odp/acl` decorator that adds the
   * ACL rows and holdings each write changes to the same atomic batch.
   */
  readonly store: TenantStore;
  readonly access: AccessPolicy;
  /** The tenant's full-text index; lists with `q` are served from it. Absent: `q` is ignored. */
  readonly search?: SearchIndex;
  /** Encrypts SECRET field values at rest; absent, they are stored as sent (still never returned). */
  readonly secrets?: SecretCipher;
  /** The clock; the system clock when absent. */
  readonly now?: () => Date;
  /** New object ids; `crypto.randomUUID` when absent. */
  readonly newId?: () => string;
  readonly baseUrl?: string;
  /** `systemSetting('name')` for formulas: plain `system.systemSetting` values. */
  readonly systemSetting?: (name: string) => Promise<string | null>;
  /**
   * The decrypted `system.secretValue` of a name: what `systemSetting()` falls back to in gateway
   * script parameters only (never in field formulas, whose results are stored and shown).
   */
  readonly secretValue?: (name: string) => Promise<string | null>;
  /** Called after every committed write that appended change events (wakes event streams). */
  readonly onChange?: () => void;
  /**
   * The job queue the tenant outbox is relayed to right after a write that queued jobs (script
   * gateway calls). Absent, the jobs wait in the outbox for a worker's sweep.
   */
  readonly jobs?: JobQueue;
  /** A relay right after a write failed (the jobs stay in the outbox); for the log. */
  readonly onRelayError?: (error: unknown) => void;
}
