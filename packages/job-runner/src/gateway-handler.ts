/**
 * The handler of `gateway` jobs (queued by CONSUMER_GATEWAY scripts, see `@odp/data` scripts.ts):
 * calls the script's gateway (Webhook, Mail, UserInvitation) with the parameters resolved when the
 * script fired, or buffers the change of a DatastoreReplicator for its flush (the handler of flush
 * jobs is {@link replicationFlushHandler}). Every external call (a webhook request, an e-mail, an
 * invitation's e-mail) runs (its parameters checked first: bad ones fail the job before any call)
 * through the {@link ServiceUsage} of the deployment: the rate limit of its service (`webhook`,
 * `mail`) is applied across every worker, and one usage record is written per call. A call the
 * limit refuses fails the try with a ServiceLimitError, which the retry schedule treats like an
 * HTTP 429: tried again after 10 s, 60 s, 15 min, then given up with a `consumer_gateway_retry`
 * log entry. A DatastoreReplicator without a warehouse, and Mail or UserInvitation without a
 * configured mail server, fail the job without retry, with a message saying so.
 */
import type { Job } from '@odp/core';
import { GatewayError, mailMessage, webhookRequest } from '@odp/gateways';
import type {
  DatastoreReplicator,
  GatewayCall,
  MailGateway,
  ServiceUsage,
  UserInvitationGateway,
  WebhookGateway,
} from '@odp/gateways';
import type { JobHandler } from './runner.js';

export interface GatewayHandlerDeps {
  readonly webhook: WebhookGateway;
  /** The Mail gateway; null when no mail server is configured (`ODP_SMTP_URL`). */
  readonly mail: MailGateway | null;
  /** The UserInvitation gateway; it sends its e-mails through `mail`. */
  readonly invitations: UserInvitationGateway;
  /** Rate limits and usage records of the external calls. */
  readonly usage: ServiceUsage;
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

/** The service whose rate limit and usage records a gateway's external calls count under. */
export const SERVICE_OF_GATEWAY: Readonly<Record<string, string>> = {
  Webhook: 'webhook',
  Mail: 'mail',
  UserInvitation: 'mail',
};

export function gatewayHandler(deps: GatewayHandlerDeps): JobHandler {
  const { usage } = deps;
  /** Sends one e-mail as a metered call of the `mail` service. */
  const sendMail = (call: GatewayCall) => {
    const mail = deps.mail;
    if (!mail) throw new GatewayError('No mail server is configured (ODP_SMTP_URL).', false);
    // Bad parameters fail here: no call is made, so none is counted or logged.
    mailMessage(call.parameters, call.htmlBody === true);
    return usage.call(call.tenantId, SERVICE_OF_GATEWAY.Mail!, call.reference ?? null, () => mail.send(call));
  };
  return async (job) => {
    const gateway = job.payload['gateway'];
    const replicator = gateway === 'DatastoreReplicator' ? deps.replicator : undefined;
    if (gateway !== 'Webhook' && gateway !== 'Mail' && gateway !== 'UserInvitation' && !replicator) {
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
    const href = job.payload['href'];
    const call: GatewayCall = {
      id: job.id,
      tenantId: job.tenantId,
      parameters,
      reference: typeof href === 'string' ? href : null,
      htmlBody: job.payload['htmlBody'] === true,
    };
    if (gateway === 'Mail') {
      await sendMail(call);
      return;
    }
    if (gateway === 'UserInvitation') {
      if (!deps.mail) throw new GatewayError('No mail server is configured (ODP_SMTP_URL).', false);
      // Refused before any profile changes while the e-mail could not be sent anyway.
      await usage.assertWithinLimit(job.tenantId, SERVICE_OF_GATEWAY.UserInvitation!);
      await deps.invitations.invite(call, sendMail);
      return;
    }
    webhookRequest(parameters);
    await usage.call(job.tenantId, SERVICE_OF_GATEWAY.Webhook!, call.reference ?? null, () =>
      deps.webhook.send({ ...call, secret }),
    );
  };
}

/** The handler of `replication-flush` jobs: writes a destination's buffered changes. */
export function replicationFlushHandler(replicator: DatastoreReplicator): JobHandler {
  return async (job) => {
    await replicator.flush(job);
  };
}
