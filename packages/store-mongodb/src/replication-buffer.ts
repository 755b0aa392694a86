/**
 * The ReplicationBuffer on MongoDB, for deployments whose workers run on several hosts and so
 * cannot share the embedded buffer's SQLite file: the `replicationEvents` collection of the platform
 * database (the registry's). An event's `_id` is its id, so a second append of it (a job run again
 * after a crash, or by a second worker) is refused by the server whatever the number of processes.
 * The payload is kept as JSON text: object field names may hold characters MongoDB gives a meaning.
 *
 * "Oldest first" orders by the event's time, then by a per-event ObjectId (arrival order within one
 * process; within the same second across processes the order is the ObjectIds').
 */
import { ObjectId } from 'mongodb';
import type { Collection, MongoClient } from 'mongodb';
import type { ReplicationBuffer, ReplicationEvent } from '@odp/core';
import { connectMongo, databaseOf } from './connect.js';
import { PLATFORM_DATABASE } from './platform/registry.js';
import { isDuplicateKey } from './server-errors.js';

interface EventDocument {
  _id: string;
  tenantId: string;
  destination: string;
  objectId: string;
  at: string;
  seq: ObjectId;
  /** JSON of the payload; removed once flushed. */
  payload?: string;
  /** When the event was flushed; null while it waits. */
  flushedAt: Date | null;
}

export interface MongoReplicationBufferOptions {
  readonly url: string;
  /** The database name; by default the one the address names, else `odp_platform`. */
  readonly database?: string;
  /** How long to wait for a server at open (default 5 s). */
  readonly timeoutMs?: number;
}

/**
 * Connects (MongoUnreachableError when no server answers) and returns the buffer, which owns its
 * client: `close()` closes it.
 */
export async function openMongoReplicationBuffer(
  options: MongoReplicationBufferOptions,
): Promise<MongoReplicationBuffer> {
  const client = await connectMongo(options.url, options.timeoutMs);
  const buffer = new MongoReplicationBuffer(
    client,
    client
      .db(options.database ?? databaseOf(options.url) ?? PLATFORM_DATABASE)
      .collection<EventDocument>('replicationEvents'),
  );
  await buffer.createIndexes();
  return buffer;
}

export class MongoReplicationBuffer implements ReplicationBuffer {
  constructor(
    private readonly client: MongoClient,
    private readonly events: Collection<EventDocument>,
  ) {}

  async createIndexes(): Promise<void> {
    await this.events.createIndex({ tenantId: 1, destination: 1, flushedAt: 1, at: 1, seq: 1 });
    await this.events.createIndex({ flushedAt: 1 });
  }

  async append(event: ReplicationEvent): Promise<boolean> {
    try {
      await this.events.insertOne({
        _id: event.id,
        tenantId: event.tenantId,
        destination: event.destination,
        objectId: event.objectId,
        at: event.at,
        seq: new ObjectId(),
        payload: JSON.stringify(event.payload),
        flushedAt: null,
      });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async pending(tenantId: string, destination: string, limit: number): Promise<ReplicationEvent[]> {
    const documents = await this.events
      .find({ tenantId, destination, flushedAt: null })
      .sort({ at: 1, seq: 1 })
      .limit(limit)
      .toArray();
    return documents.map((document) => ({
      id: document._id,
      tenantId: document.tenantId,
      destination: document.destination,
      objectId: document.objectId,
      at: document.at,
      payload: JSON.parse(document.payload ?? '{}') as Record<string, unknown>,
    }));
  }

  async markFlushed(ids: readonly string[], now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.events.updateMany(
      { _id: { $in: [...ids] }, flushedAt: null },
      { $set: { flushedAt: now }, $unset: { payload: '' } },
    );
  }

  async prune(before: Date): Promise<number> {
    return (await this.events.deleteMany({ flushedAt: { $ne: null, $lt: before } })).deletedCount;
  }

  async deleteTenant(tenantId: string): Promise<number> {
    return (await this.events.deleteMany({ tenantId })).deletedCount;
  }

  /** Removes the collection (tests). */
  async drop(): Promise<void> {
    await this.events.drop().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
