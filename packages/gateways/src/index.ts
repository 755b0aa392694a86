export { AddressPolicy, AddressRefusedError } from './address-policy.js';
export type { ResolvedAddress, Resolver } from './address-policy.js';
export { GatewayError } from './gateway.js';
export type { GatewayCall } from './gateway.js';
export { RETRY_DELAYS_MS, nextAttemptAt } from './retry.js';
export { WebhookGateway, webhookRequest, webhookSignature } from './webhook.js';
export type { WebhookCall, WebhookOptions } from './webhook.js';
export { MailGateway, mailMessage } from './mail.js';
export type { MailMessage, MailOptions } from './mail.js';
export { ServiceLimitError, ServiceUsage, TARIFFS, costLocal, windowOf } from './usage.js';
export type { CallMeasure, ServiceCallRecord, ServiceLimit, ServiceUsageDeps } from './usage.js';
export {
  INVITATION_VALIDITY_MS,
  UserInvitationGateway,
  hasActiveAccess,
  parsePersonRef,
} from './user-invitation.js';
export type { InvitationOutcome, PersonRef, UserInvitationDeps } from './user-invitation.js';
export {
  DEFAULT_FLUSH_INTERVAL_MS,
  DatastoreReplicator,
  REPLICATION_FLUSH_JOB,
  flushIntervalMs,
} from './replicator.js';
export type { ReplicatorDeps } from './replicator.js';
