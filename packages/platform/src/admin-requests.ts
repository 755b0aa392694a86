/**
 * The requests `odp` leaves for a running api in the registry's settings (`odp rebuild`,
 * `odp data load-defaults`: their keys in `@odp/core`), applied to one tenant when it is next used.
 * A request is served once: it is cleared once started or served. (`odp model reload` needs no
 * request: it stores the model version itself, which every instance follows.)
 */
import { ConflictError, defaultDataRequestKey, rebuildRequestKey, UnavailableError } from '@odp/core';
import type { PlatformRegistry } from '@odp/core';
import type { RebuildStatus } from '@odp/acl';
import type { Logger } from './log.js';

/** What serving the requests does to the tenant. */
export interface AdminRequestActions {
  rebuild(onError: (error: unknown) => void): Promise<RebuildStatus>;
  /** Whether a model has loaded (default data waits for one). */
  hasModel(): boolean;
  loadDefaultData(): Promise<{ created: number; skipped: number }>;
}

export class AdminRequests {
  /** The `odp data load-defaults` request being served (concurrent requests serve it once). */
  private loadingDefaultData: string | null = null;

  constructor(
    private readonly tenantId: string,
    private readonly registry: PlatformRegistry,
    private readonly log: Logger,
    private readonly actions: AdminRequestActions,
  ) {}

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
