import { describeCoordinationContract } from '@odp/testkit';
import { createClusterCoordination } from './cluster-coordination.js';
import type { ClusterChannel, FromHub } from './cluster-coordination.js';
import { ClusterHub } from './cluster-hub.js';

/**
 * The api processes' coordination over one hub, the IPC channels replaced by in-memory ones that
 * deliver a structured clone of each message on a later turn, in order, as IPC does (the cluster's
 * IPC itself is exercised by the black-box suite test/src/api-processes.test.ts).
 */
let hub = new ClusterHub();
afterEach(() => {
  hub = new ClusterHub();
});

function connect(to: ClusterHub): ClusterChannel {
  const listeners = new Set<(message: unknown) => void>();
  const member = {
    send: (message: FromHub) => {
      const copy = structuredClone(message);
      setImmediate(() => listeners.forEach((listener) => listener(copy)));
    },
  };
  to.join(member);
  return {
    send: (message) => {
      const copy = structuredClone(message);
      setImmediate(() => to.receive(member, copy));
    },
    onMessage: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

describeCoordinationContract('api processes (one hub, IPC channels in memory)', {
  async open() {
    return createClusterCoordination(connect(hub));
  },
});
