/**
 * The checkpoint thread of `WalCheckpointThread` (wal-checkpoints.ts): a connection to each
 * database it is asked to checkpoint (the most recently used ones kept open), a PASSIVE checkpoint
 * of each file a message names. A checkpoint that cannot run (another one is running, the file is
 * gone) is skipped: the next commit asks again.
 */
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { FromCheckpointThread, ToCheckpointThread } from './wal-checkpoints.js';

/** Connections kept open at most; the least recently used one is closed first. */
const OPEN_CONNECTIONS = 64;

const connections = new Map<string, Database.Database>();

function connectionTo(file: string): Database.Database | null {
  const open = connections.get(file);
  if (open !== undefined) {
    connections.delete(file);
    connections.set(file, open);
    return open;
  }
  if (!existsSync(file)) return null;
  const db = new Database(file, { fileMustExist: true });
  // Checkpoints sync the log before copying and the database after, as the api's connections'
  // own checkpoints do (`synchronous = NORMAL`); a lock held elsewhere skips this round at once.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 0');
  connections.set(file, db);
  if (connections.size > OPEN_CONNECTIONS) close(connections.keys().next().value as string);
  return db;
}

function close(file: string): void {
  connections.get(file)?.close();
  connections.delete(file);
}

parentPort?.on('message', (message: ToCheckpointThread) => {
  if (message.kind === 'release') {
    close(message.file);
    parentPort?.postMessage({ kind: 'released', id: message.id } satisfies FromCheckpointThread);
    return;
  }
  for (const file of message.files) {
    try {
      connectionTo(file)?.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy (another checkpoint) or unreadable: skipped, see above.
    }
  }
});
