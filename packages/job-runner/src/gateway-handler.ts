/**
 * The handler of `gateway` jobs (queued by CONSUMER_GATEWAY scripts, see `@odp/data` scripts.ts):
 * calls the script's gateway (Webhook, Mail) with the parameters resolved when the script fired,
 * or buffers the change of a DatastoreReplicator for its flush (the handler of flush jobs is
 * {@link replicationFlushHandler}). A gateway this release does not run (UserInvitation), and
 * Mail without a configured mail server, fail the job without retry, with a message saying so, so
 * the job list shows why nothing happened.
 */
import type { Job } from '@odp/core';
import { GatewayError } from '@odp/gateways';
import type { DatastoreReplicator, MailGateway, WebhookGateway } from '@odp/gateways';
import type { JobHandler } from './runner.js';

export interface GatewayHandlerDeps {
  readonly webhook: WebhookGateway;
  /** The Mail gateway; null when no mail server is configured (`ODP_SMTP_URL`). */
  readonly mail: MailGateway | null;
  /** The DatastoreReplicator; absent, its jobs fail as not available (a runner without a warehouse). */
  readonly replicator?: DatastoreReplicator;
  /** The tenant's webhook signing secret; null when the tenant no longer exists. */
  readonly secretOf: (tenantId: string) => Promise<string | null>;
  /**
   * The parameters of a job's payload (decrypting them when a secret value sealed them, see
   * `unsealParameters` of `@odp/data`); null when they cannot be decrypted.
   */
  readonly parametersOf: (payload: Job['payload']) => Record<string, string | null> | null;
}

export function gatewayHandler(deps: GatewayHandlerDeps): JobHandler {
  return async (job) => {
    const gateway = job.payload['gateway'];
    const replicator = gateway === 'DatastoreReplicator' ? deps.replicator : undefined;
    if (gateway !== 'Webhook' && gateway !== 'Mail' && !replicator) {
      throw new GatewayError(`The ${String(gateway)} gateway is not available in this release.`, false);
    }
    const secret = await deps.secretOf(job.tenantId);
    if (secret === null) throw new GatewayError('The tenant no longer exists.', false);
    const parameters = deps.parametersOf(job.payload);
    if (parameters === null) {
      throw new GatewayError(
        'The parameters of the job cannot be decrypted with the current secret key.',
        false,
      );
    }
    if (replicator) {
      await replicator.accept(job, parameters);
      return;
    }
    if (gateway === 'Mail') {
      if (!deps.mail) throw new GatewayError('No mail server is configured (ODP_SMTP_URL).', false);
      await deps.mail.send({ id: job.id, tenantId: job.tenantId, parameters });
      return;
    }
    await deps.webhook.send({ id: job.id, tenantId: job.tenantId, parameters, secret });
  };
}

/** The handler of `replication-flush` jobs: writes a destination's buffered changes. */
export function replicationFlushHandler(replicator: DatastoreReplicator): JobHandler {
  return async (job) => {
    await replicator.flush(job);
  };
}
