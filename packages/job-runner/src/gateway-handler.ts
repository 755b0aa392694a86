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
}

function parametersOf(job: Job): Record<string, string | null> {
  const raw = job.payload['parameters'];
  const parameters: Record<string, string | null> = {};
  if (typeof raw !== 'object' || raw === null) return parameters;
  for (const [name, value] of Object.entries(raw))
    parameters[name] = typeof value === 'string' ? value : null;
  return parameters;
}

export function gatewayHandler(deps: GatewayHandlerDeps): JobHandler {
  return async (job) => {
    const gateway = job.payload['gateway'];
    if (gateway !== 'Webhook') {
      throw new GatewayError(`The ${String(gateway)} gateway is not available in this release.`, false);
    }
    const secret = await deps.secretOf(job.tenantId);
    if (secret === null) throw new GatewayError('The tenant no longer exists.', false);
    await deps.webhook.send({ id: job.id, tenantId: job.tenantId, parameters: parametersOf(job), secret });
  };
}
