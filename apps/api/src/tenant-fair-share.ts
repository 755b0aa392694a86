import type { RequestHandler } from 'express';
import { setShareRelease, tenantOf } from './context.js';
import type { FairShare } from '@odp/platform';
import { isEventStream, requestKind } from './request-kind.js';

/**
 * The fair share at the edge: every request of a tenant, of every kind, is admitted by `share`
 * (429 past the tenant's share) and runs at its turn. Runs after authentication, which established
 * the request's tenant, and before the body is read: a waiting request's body stays in the socket
 * (TCP backpressure). Platform and open routes (`/tenants`, `/health`) pass at once, and so does
 * the event stream, which lasts as long as its client listens: the work of serving it (a replay
 * page) takes its turn with `share.turn`.
 */
export function tenantFairShare(share: FairShare): RequestHandler {
  return (req, res, next) => {
    const tenantId = tenantOf(res);
    if (tenantId === null || isEventStream(req.method, req.path)) {
      next();
      return;
    }
    const kind = requestKind(req.method, req.path, Number(req.headers['content-length'] ?? 0));
    share.admit(
      tenantId,
      kind,
      (release) => {
        // `prefinish`: the response was ended, before the client can send its next request on
        // this connection; released on the next tick, after the write of the answer's bytes to the
        // socket (queued by `end` before `prefinish`), so that write is charged too. `close`: the
        // client went away first.
        res.once('prefinish', () => process.nextTick(release));
        res.once('close', release);
        setShareRelease(res, release);
      },
      () => next(),
    );
  };
}
