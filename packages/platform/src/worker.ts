/**
 * The background worker of a platform process (docs/worker.md): a {@link JobRunner} on the
 * platform's job queue with the gateway handler, started by `pnpm start` (in the api process) and
 * by `apps/worker` (alone, for scale-out; several may run against the same queue).
 *
 * Besides running jobs it sweeps the tenant outboxes every `ODP_WORKER_SWEEP_MS`: a job is relayed
 * right after its write by the api, and the sweep relays what a crash between the commit and that
 * relay left behind, and removes finished jobs (and flushed replication events) older than
 * `ODP_JOB_RETENTION_DAYS`. A gateway call whose retries are exhausted writes a `system.logEntry`
 * (`consumer_gateway_retry`, `ERROR`, the gateway and the last error) in the tenant. Every
 * external call is counted against `ODP_RATE_LIMITS` on the platform's shared counters and leaves a
 * `system.serviceCallLog` record (usage.ts).
 *
 * DatastoreReplicator jobs buffer their change; the `replication-flush` jobs they schedule write
 * the buffered changes to the platform's warehouse (`DatastoreReplicator` of `@odp/gateways`).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { generateInvitationToken } from '@odp/auth';
import { AppError, NotFoundError, TenantChangingError } from '@odp/core';
import type { Job } from '@odp/core';
import {
  AddressPolicy,
  DatastoreReplicator,
  GatewayError,
  MailGateway,
  REPLICATION_FLUSH_JOB,
  UserInvitationGateway,
  WebhookGateway,
} from '@odp/gateways';
import type { PersonRef } from '@odp/gateways';
import { JobRunner, gatewayHandler, replicationFlushHandler } from '@odp/job-runner';
import { SecretCipher, unsealParameters } from '@odp/data';
import type { Platform } from './platform.js';
import { writeSystemRecord } from './tenant-runtime.js';
import type { TenantRuntimes } from './tenant-runtime.js';
import { serviceUsage } from './usage.js';

const LOG_ENTRY_CLASS = 'system.logEntry';

export interface WorkerOptions {
  /** The clock; the system clock when absent. */
  readonly now?: () => Date;
}

export function startWorker(platform: Platform, options: WorkerOptions = {}): JobRunner {
  const { config, registry, runtimes, log, jobs, counters, replication, locks } = platform;
  const now = options.now ?? (() => new Date());
  const cipher = new SecretCipher(config.secretKey);
  const mail = config.smtpUrl ? new MailGateway({ smtpUrl: config.smtpUrl, from: config.mailFrom }) : null;
  const webhook = new WebhookGateway({
    policy: new AddressPolicy(config.worker.allowedNetworks),
    now,
    ...(config.worker.caFile ? { ca: [readFileSync(config.worker.caFile, 'utf8')] } : {}),
  });

  const invitations = new UserInvitationGateway({
    registry,
    updatePerson: personUpdater(runtimes),
    newToken: generateInvitationToken,
    baseUrl: config.baseUrl,
    now,
  });
  const parametersOf = (payload: Job['payload']) => unsealParameters(payload, cipher);
  const replicator = new DatastoreReplicator({
    ...replication,
    queue: jobs,
    locks,
    now,
    parametersOf,
  });

  const writeRetryLogEntry = async (job: Job, error: string) => {
    try {
      await writeSystemRecord(runtimes, job.tenantId, LOG_ENTRY_CLASS, {
        category: 'consumer_gateway_retry',
        level: 'ERROR',
        gateway: typeof job.payload['gateway'] === 'string' ? job.payload['gateway'] : null,
        message: error,
        reference: typeof job.payload['href'] === 'string' ? job.payload['href'] : null,
        details: { jobId: job.id, script: job.payload['script'] ?? null, attempts: job.attempts },
        timestamp: now().toISOString(),
      });
    } catch (failure) {
      log.error('log entry not written', { tenantId: job.tenantId, jobId: job.id, error: String(failure) });
    }
  };

  const sweep = async () => {
    const retainedFrom = new Date(now().getTime() - config.worker.retentionDays * 86_400_000);
    const pruned = await jobs.prune(retainedFrom);
    if (pruned > 0) log.info('jobs pruned', { jobs: pruned });
    await replication.buffer.prune(retainedFrom);
    for (const tenant of await registry.listTenants()) {
      try {
        const relayed = await (await runtimes.get(tenant.id)).data().objects.jobs.relayJobs();
        if (relayed > 0) log.info('outbox relayed', { tenantId: tenant.id, jobs: relayed });
      } catch (error) {
        // A tenant being changed (its runtime closed by a deletion, a reload, an announcement)
        // asks to be tried again: its outbox waits for the next sweep, and nothing failed.
        if (error instanceof TenantChangingError) {
          log.info('outbox sweep deferred', { tenantId: tenant.id, reason: error.message });
          continue;
        }
        // A tenant without a usable model has no data service; its outbox waits for the next sweep.
        log.error('outbox sweep failed', { tenantId: tenant.id, error: String(error) });
      }
    }
  };

  const runner = new JobRunner({
    queue: jobs,
    workerId: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    leaseMs: config.worker.leaseMs,
    now,
    log,
    handlers: {
      gateway: gatewayHandler({
        webhook,
        mail,
        invitations,
        usage: serviceUsage(config, counters, runtimes, log, now),
        secretOf: async (tenantId) => (await registry.getTenant(tenantId))?.webhookSecret ?? null,
        replicator,
        parametersOf,
      }),
      [REPLICATION_FLUSH_JOB]: replicationFlushHandler(replicator),
    },
    onRetriesExhausted: writeRetryLogEntry,
  });
  runner.start({
    pollMs: config.worker.pollMs,
    concurrency: config.worker.concurrency,
    sweepMs: config.worker.sweepMs,
    sweep,
  });
  return runner;
}

/**
 * Writes the names an invitation gives to its person object, as the system account; false when the
 * object does not exist. A refused change (a name too long) fails the invitation without retry.
 */
function personUpdater(runtimes: TenantRuntimes) {
  return async (
    tenantId: string,
    person: PersonRef,
    names: { firstName?: string; lastName?: string },
  ): Promise<boolean> => {
    const data = (await runtimes.get(tenantId)).data();
    const system = { kind: 'system', tenantId } as const;
    try {
      if (Object.keys(names).length === 0) await data.getOne(system, person.typeName, person.id);
      else await data.patch(system, person.typeName, person.id, names);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      if (error instanceof AppError)
        throw new GatewayError(`The person was not updated: ${error.message}`, false);
      throw error;
    }
  };
}
