/**
 * The handler of `gateway` jobs (queued by CONSUMER_GATEWAY scripts, see `@odp/data` scripts.ts):
 * calls the script's gateway with the parameters resolved when the script fired. Gateways this
 * release does not run (Mail, UserInvitation, DatastoreReplicator) fail the job without retry, with
 * a message saying so, so the job list shows why nothing happened.
 */
import type { Job } from '@odp/core';
import { GatewayError } from '@odp/gateways';
import type { WebhookGateway } from '@odp/gateways';
import type { JobHandler } from './runner.js';

export interface GatewayHandlerDeps {
  readonly webhook: WebhookGateway;
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
    if (gateway !== 'Webhook') {
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
    await deps.webhook.send({ id: job.id, tenantId: job.tenantId, parameters, secret });
  };
}
