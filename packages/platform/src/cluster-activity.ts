/**
 * The fair share across the api processes of one machine (`ODP_API_PROCESSES`): each process
 * tells the others, through the primary's hub, which tenants are active in it, and counts the
 * tenants they report as active too (`FairShare.noteActiveElsewhere`). The processes share the
 * machine's cores: without this, a tenant whose flood one process serves alone would run there
 * unlimited and slow another tenant's requests in the next process as much as in its own, and a
 * flood served by every process would get its share of each.
 */
import { CLUSTER_MESSAGE_TAG, isClusterMessage } from './cluster-coordination.js';
import type { ClusterChannel, FromHub } from './cluster-coordination.js';
import type { FairShare } from './fair-share.js';

/** How often a process with active tenants reports them (a report counts for `ACTIVE_MS`, 1 s). */
export const ACTIVITY_REPORT_MS = 250;

/** Reports this process's active tenants and takes the others'; returns the function that stops it. */
export function shareTenantActivity(channel: ClusterChannel, share: FairShare): () => void {
  const from = String(process.pid);
  const timer = setInterval(() => {
    const activity = share.activity();
    if (activity.active.length > 0)
      channel.send({ tag: CLUSTER_MESSAGE_TAG, kind: 'activity', from, activity });
  }, ACTIVITY_REPORT_MS);
  timer.unref();
  const stopReceiving = channel.onMessage((message) => {
    if (isClusterMessage<FromHub>(message) && message.kind === 'activity') {
      share.noteActiveElsewhere(message.from, message.activity);
    }
  });
  return () => {
    clearInterval(timer);
    stopReceiving();
  };
}
