/**
 * The JobQueue port on agenda (`ODP_JOBS=agenda`): the scale-out job queue, kept in the
 * deployment's MongoDB through agenda's MongoDB backend (`@agendajs/mongo-backend`).
 *
 * Each job is an agenda job document in agenda's collection (`agendaJobs` of the configured
 * database, agenda's own indexes created by its backend on connect): `name` is the job's kind,
 * `nextRunAt` when it is due, `lockedAt` set while a worker holds it, `lastFinishedAt`,
 * `failedAt`, `failCount` and `failReason` as agenda records them. What the port needs beyond
 * agenda's fields lives in `data`: the job's id (unique index), tenant, object, payload, status,
 * attempts and the lease (`data.leaseUntil`, `data.worker`).
 *
 * Leases are the port's, not agenda's: agenda frees a lock after one `lockLifetime` per job name,
 * while the port leases each claim for the time its worker asks (`claim(worker, leaseMs, now)`).
 * Nor is a claim agenda's `getNextJobToRun`, one `findOneAndUpdate`: the MongoDB wire server
 * FerretDB v1 runs that as a read and a write, so two workers polling at once both got the same
 * job (the JobQueue contract's concurrent claimers). A claim reads the due jobs (due and unlocked,
 * or lease expired; earliest `nextRunAt` first) and takes one by inserting its attempt under a
 * unique key (`<collection>Attempts`, `_id` = job id and attempt number), which every server keeps
 * unique; then it records the lease on the job. Completing or failing a job matches the worker
 * holding the lease, so a worker whose lease expired and was taken over changes nothing. Agenda's scheduler loop (`agenda.start()`) is not
 * run: the platform's worker loop claims (docs/worker.md), and the jobs stay readable and
 * manageable with agenda's tools.
 */
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { MongoClient } from 'mongodb';
import type { Collection, Filter } from 'mongodb';
import type { Job, JobListFilter, JobQueue, JobStatus, NewJob } from '@odp/core';

/** The fields of an agenda job document this queue reads and writes. */
interface AgendaJobDocument {
  name: string;
  priority: number;
  type: 'normal';
  nextRunAt: Date | null;
  lockedAt: Date | null;
  lastRunAt: Date | null;
  lastFinishedAt: Date | null;
  failedAt: Date | null;
  failCount: number | null;
  failReason: string | null;
  data: {
    id: string;
    tenantId: string;
    objectId: string | null;
    /**
     * The payload as JSON text: its keys are the platform's and the tenants' (webhook headers such as
     * `header.X-Source`), and MongoDB servers refuse or mangle field names with `.` or a leading `$`.
     */
    payload: string;
    createdAt: string;
    runAt: string;
    status: JobStatus;
    attempts: number;
    leaseUntil: Date | null;
    worker: string | null;
    updatedAt: Date;
  };
}

/** One claim of a job (see `takeAttempt`): `_id` is the job id and the attempt's number. */
interface AttemptDocument {
  _id: string;
  jobId: string;
  tenantId: string;
  worker: string;
}

/** Due jobs a claim reads at once: it takes the first that no other worker took meanwhile. */
const CLAIM_CANDIDATES = 8;

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}

export interface AgendaJobQueueOptions {
  /** The database of agenda's collection (default `odp_jobs`). */
  readonly database?: string;
  /** Agenda's collection (default `agendaJobs`, agenda's own default). */
  readonly collection?: string;
}

/** Opens the queue on the MongoDB at `url`; rejects when no server answers. */
export async function openAgendaJobQueue(
  url: string,
  options: AgendaJobQueueOptions = {},
): Promise<JobQueue> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const db = client.db(options.database ?? 'odp_jobs');
    const collectionName = options.collection ?? 'agendaJobs';
    const agenda = new Agenda({ backend: new MongoBackend({ mongo: db, collection: collectionName }) });
    await agenda.ready;
    const collection = db.collection<AgendaJobDocument>(collectionName);
    await collection.createIndex({ 'data.id': 1 }, { unique: true, name: 'odpJobId' });
    await collection.createIndex({ 'data.tenantId': 1, 'data.createdAt': -1 }, { name: 'odpTenantJobs' });
    const attempts = db.collection<AttemptDocument>(`${collectionName}Attempts`);
    await attempts.createIndex({ tenantId: 1 }, { name: 'tenant' });
    await attempts.createIndex({ jobId: 1 }, { name: 'job' });
    return new AgendaJobQueue(collection, attempts, async () => {
      await agenda.stop();
      await client.close();
    });
  } catch (error) {
    await client.close();
    throw error;
  }
}

function toJob(doc: AgendaJobDocument): Job {
  const { data } = doc;
  return {
    id: data.id,
    tenantId: data.tenantId,
    kind: doc.name,
    objectId: data.objectId,
    payload: JSON.parse(data.payload) as Record<string, unknown>,
    createdAt: data.createdAt,
    status: data.status,
    attempts: data.attempts,
    runAt: data.runAt,
    leaseUntil: data.leaseUntil === null ? null : data.leaseUntil.toISOString(),
    lastError: doc.failReason ?? null,
    updatedAt: data.updatedAt.toISOString(),
  };
}

export class AgendaJobQueue implements JobQueue {
  constructor(
    private readonly jobs: Collection<AgendaJobDocument>,
    private readonly attempts: Collection<AttemptDocument>,
    private readonly closeConnection: () => Promise<void>,
  ) {}

  async enqueue(jobs: readonly NewJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const now = new Date();
    await this.jobs.bulkWrite(
      jobs.map((job) => {
        const runAt = job.runAt ?? job.createdAt;
        const doc: AgendaJobDocument = {
          name: job.kind,
          priority: 0,
          type: 'normal',
          nextRunAt: new Date(runAt),
          lockedAt: null,
          lastRunAt: null,
          lastFinishedAt: null,
          failedAt: null,
          failCount: null,
          failReason: null,
          data: {
            id: job.id,
            tenantId: job.tenantId,
            objectId: job.objectId,
            payload: JSON.stringify(job.payload),
            createdAt: job.createdAt,
            runAt,
            status: 'pending',
            attempts: 0,
            leaseUntil: null,
            worker: null,
            updatedAt: now,
          },
        };
        return { updateOne: { filter: { 'data.id': job.id }, update: { $setOnInsert: doc }, upsert: true } };
      }),
      { ordered: false },
    );
  }

  async claim(worker: string, leaseMs: number, now: Date): Promise<Job | null> {
    const due = await this.jobs
      .find({
        $or: [
          { 'data.status': 'pending', nextRunAt: { $lte: now } },
          { 'data.status': 'running', 'data.leaseUntil': { $lte: now } },
        ],
      })
      .sort({ nextRunAt: 1, _id: 1 })
      .limit(CLAIM_CANDIDATES)
      .toArray();
    for (const candidate of due) {
      const attempts = candidate.data.attempts + 1;
      if (!(await this.takeAttempt(candidate, attempts, worker))) continue;
      const set = {
        lockedAt: now,
        lastRunAt: now,
        'data.status': 'running' as const,
        'data.attempts': attempts,
        'data.leaseUntil': new Date(now.getTime() + leaseMs),
        'data.worker': worker,
        'data.updatedAt': now,
      };
      const claimed = await this.jobs.findOneAndUpdate(
        { _id: candidate._id },
        { $set: set },
        { returnDocument: 'after' },
      );
      if (claimed !== null) return toJob(claimed);
    }
    return null;
  }

  /**
   * Records that `worker` makes attempt `attempts` of the job: an insert under a key of its own, so
   * of two workers that read the same due job exactly one takes it (the other gets a duplicate key).
   */
  private async takeAttempt(job: AgendaJobDocument, attempts: number, worker: string): Promise<boolean> {
    try {
      await this.attempts.insertOne({
        _id: `${job.data.id}#${attempts}`,
        jobId: job.data.id,
        tenantId: job.data.tenantId,
        worker,
      });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async complete(id: string, worker: string, now: Date): Promise<boolean> {
    const done = await this.jobs.updateOne(this.heldBy(id, worker), {
      $set: {
        nextRunAt: null,
        lockedAt: null,
        lastFinishedAt: now,
        failReason: null,
        'data.status': 'done',
        'data.leaseUntil': null,
        'data.worker': null,
        'data.updatedAt': now,
      },
    });
    return done.modifiedCount === 1;
  }

  async fail(id: string, worker: string, error: string, retryAt: Date | null, now: Date): Promise<boolean> {
    const failed = await this.jobs.updateOne(this.heldBy(id, worker), {
      $set: {
        nextRunAt: retryAt,
        lockedAt: null,
        failedAt: now,
        failReason: error,
        'data.status': retryAt === null ? 'failed' : 'pending',
        ...(retryAt === null ? {} : { 'data.runAt': retryAt.toISOString() }),
        'data.leaseUntil': null,
        'data.worker': null,
        'data.updatedAt': now,
      },
      $inc: { failCount: 1 },
    });
    return failed.modifiedCount === 1;
  }

  async get(id: string): Promise<Job | null> {
    const doc = await this.jobs.findOne({ 'data.id': id });
    return doc === null ? null : toJob(doc);
  }

  async prune(before: Date): Promise<number> {
    const finished: Filter<AgendaJobDocument> = {
      'data.status': { $in: ['done', 'failed'] },
      'data.updatedAt': { $lt: before },
    };
    const ids = (await this.jobs.find(finished, { projection: { 'data.id': 1 } }).toArray()).map(
      (doc) => doc.data.id,
    );
    if (ids.length === 0) return 0;
    const pruned = await this.jobs.deleteMany({ ...finished, 'data.id': { $in: ids } });
    await this.attempts.deleteMany({ jobId: { $in: ids } });
    return pruned.deletedCount;
  }

  async list(filter: JobListFilter): Promise<Job[]> {
    const query: Filter<AgendaJobDocument> = { 'data.tenantId': filter.tenantId };
    if (filter.objectId !== undefined) query['data.objectId'] = filter.objectId;
    const docs = await this.jobs
      .find(query)
      .sort({ 'data.createdAt': -1, 'data.id': -1 })
      .limit(filter.limit)
      .toArray();
    return docs.map(toJob);
  }

  async deleteTenant(tenantId: string): Promise<number> {
    const deleted = await this.jobs.deleteMany({ 'data.tenantId': tenantId });
    await this.attempts.deleteMany({ tenantId });
    return deleted.deletedCount;
  }

  async close(): Promise<void> {
    await this.closeConnection();
  }

  /** The job `id` while `worker` holds its lease. */
  private heldBy(id: string, worker: string): Filter<AgendaJobDocument> {
    return { 'data.id': id, 'data.status': 'running', 'data.worker': worker };
  }
}
