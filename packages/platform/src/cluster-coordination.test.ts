import { describeCoordinationContract } from '@odp/testkit';
import { shareTenantActivity } from './cluster-activity.js';
import { createClusterCoordination } from './cluster-coordination.js';
import type { ClusterChannel, FromHub } from './cluster-coordination.js';
import { ClusterHub } from './cluster-hub.js';
import { FairShare } from './fair-share.js';

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

describe('the tenants active in each api process, told to the others', () => {
  it("makes a tenant alone in one process contend with another process's tenant", async () => {
    const limits = { tenantRequests: 1000, tenantWorkMs: 10, tenantConcurrency: 4 };
    const first = new FairShare(limits);
    const second = new FairShare(limits);
    const stops = [first, second].map((share) => shareTenantActivity(connect(hub), share));
    const cheap = { label: 'GET /data', priorMs: 1 };
    const admitA = () =>
      second.admit(
        'A',
        cheap,
        () => undefined,
        () => undefined,
      );
    try {
      // B is served by the first process; A, alone in the second, is capped by nothing but
      // `tenantRequests`.
      first.admit(
        'B',
        cheap,
        () => undefined,
        () => undefined,
      );
      for (let i = 0; i < 20; i++) admitA();
      // After the first report (every 250 ms), A contends with B in the second process too: its
      // kind is capped by its cost (10 ms of work over 1 ms requests: 10 under way).
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(admitA).toThrow('its share for their cost');
    } finally {
      stops.forEach((stop) => stop());
    }
  });
});

describe('write locks released, told to the other api processes', () => {
  it("hands a process's announcement of a file to every other process listening to it, not back to it", async () => {
    const FILE = '/data/tenants/a/documents.sqlite';
    const [first, second, third] = [1, 2, 3].map(() => createClusterCoordination(connect(hub)));
    const heard = new Map<string, string[]>();
    const stops = Object.entries({ first, second, third }).map(([name, coordination]) =>
      coordination!.lockReleases!.listen(FILE, () => heard.set(name, [...(heard.get(name) ?? []), FILE])),
    );
    try {
      first!.lockReleases!.announce(FILE);
      first!.lockReleases!.announce('/data/tenants/b/documents.sqlite');
      // Through the hub: two turns of IPC.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(Object.fromEntries(heard)).toEqual({
        second: [FILE],
        third: [FILE],
      });
    } finally {
      stops.forEach((stop) => stop());
      await Promise.all([first, second, third].map((coordination) => coordination!.close()));
    }
  });
});
