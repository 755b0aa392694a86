/**
 * The requests `odp` leaves for a running api in the registry's settings (`odp model reload`,
 * `odp rebuild`, `odp data load-defaults`: their keys in `@odp/core`), applied to one tenant when it
 * is next used. A request is served once: the reload request is remembered as seen, the rebuild and
 * default-data requests are cleared once started or served.
 */
import {
  ConflictError,
  defaultDataRequestKey,
  modelReloadRequestKey,
  rebuildRequestKey,
  UnavailableError,
} from '@odp/core';
import type { Coordination, PlatformRegistry } from '@odp/core';
import type { RebuildStatus } from '@odp/acl';
import type { ModelStatus } from '@odp/model-loader';
import type { Logger } from './log.js';

/** What serving the requests does to the tenant. */
export interface AdminRequestActions {
  reload(): Promise<ModelStatus>;
  rebuild(onError: (error: unknown) => void): Promise<RebuildStatus>;
  /** Whether a model has loaded (default data waits for one). */
  hasModel(): boolean;
  loadDefaultData(): Promise<{ created: number; skipped: number }>;
}

export class AdminRequests {
  private seenReloadRequest: string | null = null;
  /** The `odp data load-defaults` request being served (concurrent requests serve it once). */
  private loadingDefaultData: string | null = null;

  constructor(
    private readonly tenantId: string,
    private readonly registry: PlatformRegistry,
    private readonly log: Logger,
    private readonly actions: AdminRequestActions,
  ) {}

  /** Remembers the reload request made before the tenant opened (the model just loaded is newer). */
  async init(): Promise<void> {
    this.seenReloadRequest = await this.registry.getSetting(modelReloadRequestKey(this.tenantId));
  }

  /** Reloads when `odp model reload` asked for it since the last check. */
  async applyReload(): Promise<void> {
    const request = await this.registry.getSetting(modelReloadRequestKey(this.tenantId));
    if (request === this.seenReloadRequest) return;
    this.seenReloadRequest = request;
    await this.actions.reload();
  }

  /** Starts the rebuild `odp rebuild` asked for once none is running (else it stays pending). */
  async applyRebuild(): Promise<void> {
    const key = rebuildRequestKey(this.tenantId);
    const request = await this.registry.getSetting(key);
    if (request === null || request === '') return;
    try {
      await this.actions.rebuild((error) =>
        this.log.error('tenant rebuild failed', { tenantId: this.tenantId, error: String(error) }),
      );
    } catch (error) {
      // Still pending: the next request tries again once the running rebuild or the model allows.
      if (error instanceof ConflictError || error instanceof UnavailableError) return;
      throw error;
    }
    await this.registry.setSetting(key, '');
  }

  /**
   * Loads the default data `odp data load-defaults` asked for, once: the request is cleared whatever
   * the outcome, which is logged (`default data loaded` or `... failed`).
   */
  async applyDefaultData(): Promise<void> {
    const key = defaultDataRequestKey(this.tenantId);
    const request = await this.registry.getSetting(key);
    if (request === null || request === '' || request === this.loadingDefaultData) return;
    if (!this.actions.hasModel()) return; // pending until a model loads
    this.loadingDefaultData = request;
    try {
      const loaded = await this.actions.loadDefaultData();
      this.log.info('default data loaded', { tenantId: this.tenantId, ...loaded });
    } catch (error) {
      this.log.error('default data load failed', { tenantId: this.tenantId, error: String(error) });
    } finally {
      await this.registry.setSetting(key, '');
      this.loadingDefaultData = null;
    }
  }
}

/**
 * Reload announcements of one runtime not yet delivered back to it: every instance's listeners hear
 * every announcement, this one's included (once), and this one has already reloaded.
 */
export class OwnAnnouncements {
  private pending = 0;

  /** Announces a model reload to every instance (a failure is logged: the others reload later). */
  async publish(
    coordination: Pick<Coordination, 'invalidations'>,
    tenantId: string,
    log: Logger,
  ): Promise<void> {
    this.pending += 1;
    try {
      await coordination.invalidations.publish({ kind: 'model', tenantId });
    } catch (error) {
      this.pending -= 1;
      // Reloaded here; the other instances reload on their next `odp model reload` or push.
      log.error('model reload announcement failed', { tenantId, error: String(error) });
    }
  }

  /** True (and counted) when the announcement heard is this runtime's own. */
  consumeOwn(): boolean {
    if (this.pending === 0) return false;
    this.pending -= 1;
    return true;
  }
}
