/**
 * The primary's side of the coordination of several api processes (see cluster-coordination.ts):
 * a change announcement or an invalidation from one process is relayed to every process, the
 * sender included, and the tenants a process reports active and the files whose write lock it
 * released to every other process; the invalidation generation lives here, in an in-process
 * coordination, so every process sees one generation, and the leases are taken here, from the
 * machine's lease service (leases.sqlite in the data directory, shared with the workers started
 * on their own), so each has one holder.
 */
import { randomUUID } from 'node:crypto';
import { createInProcessCoordination } from '@odp/core';
import type { Coordination, Lease, LockService } from '@odp/core';
import { CLUSTER_MESSAGE_TAG, isClusterMessage } from './cluster-coordination.js';
import type { ClusterCall, FromHub, ToHub } from './cluster-coordination.js';

/** One process connected to the hub: where its messages go. */
export interface ClusterMember {
  send(message: FromHub): void;
}

export class ClusterHub {
  private readonly shared: Coordination;
  private readonly members = new Set<ClusterMember>();
  /** Leases held, by handle, and the member that holds each (its leases expire when it is gone). */
  private readonly leases = new Map<string, { lease: Lease; holder: ClusterMember }>();

  /** `locks`: the machine's leases; the hub's own (in this process) when absent. */
  constructor(locks?: LockService) {
    this.shared = createInProcessCoordination(locks);
  }

  /** Connects a process; its messages are then handed to `receive`. */
  join(member: ClusterMember): void {
    this.members.add(member);
  }

  /**
   * Disconnects a process that ended. Its leases are forgotten, not released: like a holder that
   * dies anywhere, they expire after their time, so a half-done job is not taken over at once.
   */
  leave(member: ClusterMember): void {
    this.members.delete(member);
    for (const [handle, held] of this.leases) if (held.holder === member) this.leases.delete(handle);
  }

  /** Handles one message from `member` (anything that is not of the protocol is ignored). */
  receive(member: ClusterMember, message: unknown): void {
    if (!isClusterMessage<ToHub>(message)) return;
    if (message.kind === 'change') {
      this.broadcast({
        tag: CLUSTER_MESSAGE_TAG,
        kind: 'change',
        tenantId: message.tenantId,
        head: message.head,
      });
      return;
    }
    if (message.kind === 'activity') {
      const { from, activity } = message;
      for (const other of this.members) {
        if (other !== member) send(other, { tag: CLUSTER_MESSAGE_TAG, kind: 'activity', from, activity });
      }
      return;
    }
    if (message.kind === 'lock-released') {
      const { file } = message;
      for (const other of this.members) {
        if (other !== member) send(other, { tag: CLUSTER_MESSAGE_TAG, kind: 'lock-released', file });
      }
      return;
    }
    const { id } = message;
    this.answer(member, message.call).then(
      (value) => send(member, { tag: CLUSTER_MESSAGE_TAG, kind: 'reply', id, value }),
      (error: unknown) => send(member, { tag: CLUSTER_MESSAGE_TAG, kind: 'reply', id, error: String(error) }),
    );
  }

  private async answer(member: ClusterMember, call: ClusterCall): Promise<unknown> {
    switch (call.op) {
      case 'invalidate':
        // The generation moves and every process is told before the publisher's call returns.
        await this.shared.invalidations.publish(call.message);
        this.broadcast({ tag: CLUSTER_MESSAGE_TAG, kind: 'invalidation', message: call.message });
        return null;
      case 'generation':
        return this.shared.invalidations.generation();
      case 'acquire': {
        const lease = await this.shared.locks.acquire(call.name, call.ttlMs);
        if (lease === null) return null;
        const handle = randomUUID();
        this.leases.set(handle, { lease, holder: member });
        return handle;
      }
      case 'renew':
        return (await this.leases.get(call.lease)?.lease.renew()) ?? false;
      case 'release': {
        const held = this.leases.get(call.lease);
        this.leases.delete(call.lease);
        await held?.lease.release();
        return null;
      }
    }
  }

  private broadcast(message: FromHub): void {
    for (const member of this.members) send(member, message);
  }
}

/** A process that is exiting cannot receive; the others still must. */
function send(member: ClusterMember, message: FromHub): void {
  try {
    member.send(message);
  } catch {
    // See above: it leaves the hub when its exit is seen.
  }
}
