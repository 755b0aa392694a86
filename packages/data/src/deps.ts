import type {
  AccessPolicy,
  AccessRowMaintenance,
  JobQueue,
  Model,
  SearchIndex,
  TenantStore,
  UploadClaims,
  WriteBatch,
} from '@odp/core';
import type { ListCursors } from '@odp/query-engine';
import type { ClassReach } from './classes.js';
import type { SecretCipher } from './secret-cipher.js';

/** What one stored value and one list page may weigh (docs/data-api.md, Limits). */
export interface DataLimits {
  /** Largest stored form of one field value, in UTF-8 bytes of its JSON; a larger value is a 400. */
  readonly maxValueBytes: number;
  /** Byte budget of a list page's objects; the page is shortened to fit, keeping at least one. */
  readonly maxPageBytes: number;
  /** Byte budget of one page of an event stream (at least one event); `maxPageBytes` when absent. */
  readonly eventPageBytes?: number;
}

/** Everything the object service of one tenant works with. */
export interface DataServiceDeps {
  readonly tenantId: string;
  readonly model: Model;
  /** The tenant's store. */
  readonly store: TenantStore;
  readonly access: AccessPolicy;
  /**
   * Record-level access control's step of every write (`@odp/acl`): each batch is handed to the
   * store with the ACL rows and holdings it changes, in one atomic write. Absent: batches are
   * written as they are (a tenant without record-level access control, unit tests).
   */
  readonly accessRows?: AccessRowMaintenance;
  /** The classes the service's routes reach: `data` (default) or `system` (the `/system/...` routes). */
  readonly reach?: ClassReach;
  /** The tenant's full-text index; lists with `q` are served from it. Absent: `q` is ignored. */
  readonly search?: SearchIndex;
  /** Encrypts SECRET field values at rest; absent, they are stored as sent (still never returned). */
  readonly secrets?: SecretCipher;
  /**
   * The tenant's uploads: FILE and IMAGE values may claim them, and the bytes of files a write
   * removes are released through it. Absent: no upload can be claimed (only held files are kept).
   */
  readonly files?: UploadClaims;
  /** The clock; the system clock when absent. */
  readonly now?: () => Date;
  /** New object ids; `crypto.randomUUID` when absent. */
  readonly newId?: () => string;
  readonly baseUrl?: string;
  /** `systemSetting('name')` for formulas: plain `system.systemSetting` values. */
  readonly systemSetting?: (name: string) => Promise<string | null>;
  /**
   * Seals and opens the `after` cursors of list `next` links (keyset paging). Absent (unit tests),
   * `next` links carry page numbers and an `after` parameter is refused.
   */
  readonly listCursors?: ListCursors;
  /** Size limits of values and list pages; absent, neither is limited (unit tests). */
  readonly limits?: DataLimits;
  /**
   * The decrypted `system.secretValue` of a name: what `systemSetting()` falls back to in gateway
   * script parameters only (never in field formulas, whose results are stored and shown).
   */
  readonly secretValue?: (name: string) => Promise<string | null>;
  /**
   * Told of every batch this process writes, once its write settled (committed or failed): what
   * remembers stored objects forgets what the batch may have changed (`NamedObjects`).
   */
  readonly written?: (batch: WriteBatch) => void;
  /** Called after every committed write that appended change events (wakes event streams). */
  readonly onChange?: () => void;
  /**
   * The job queue the tenant outbox is relayed to right after a write that queued jobs (script
   * gateway calls). Absent, the jobs wait in the outbox for a worker's sweep.
   */
  readonly jobs?: JobQueue;
  /**
   * Refuses (a RateLimitedError, HTTP 429) a MANUAL run of a script whose gateway's external
   * service has reached its rate limit, before anything is queued. Absent: not limited.
   */
  readonly assertGatewayWithinLimit?: (gateway: string) => Promise<void>;
  /** A relay right after a write failed (the jobs stay in the outbox); for the log. */
  readonly onRelayError?: (error: unknown) => void;
}
