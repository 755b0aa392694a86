/**
 * `GET /data/{tenant}/eventStream`: Server-Sent Events of the tenant's change log (docs/events.md).
 * Each event is `id: <cursor>` (its position in the tenant's event log, opaque), `event: <type>`,
 * `data: {type, href, classes, at, loser?, changed?, values?}` (`values` with `?values=true`, any
 * other value than `true`/`false` is 400). A reconnecting client sends `Last-Event-ID` and resumes
 * from the persisted log after that cursor; a new client gets the events after the log's head at
 * its connection. Writes through any api instance wake the
 * stream through the tenant's ChangeSignal (fed by the coordination's change fan-out, see
 * tenant-runtime.ts); a heartbeat comment every {@link HEARTBEAT_MS} keeps proxies from closing it
 * and also polls the log (a missed announcement, writes of processes outside the fan-out).
 */
import type { Request, Response } from 'express';
import type { Account, EventCursor, EventLog } from '@odp/core';
import type { ChangeSignal, DataService } from '@odp/data';
import { booleanParam } from './boolean-param.js';

export const HEARTBEAT_MS = 15_000;
const BATCH = 200;

export interface EventStreamContext {
  readonly account: Account;
  readonly data: DataService;
  readonly changes: ChangeSignal;
  /** Heartbeat interval; {@link HEARTBEAT_MS} when absent. */
  readonly heartbeatMs?: number;
}

/** The cursor the client resumes after (`Last-Event-ID`, or `?lastEventId=`); null when absent or not one of the log's. */
function lastEventId(req: Request, log: EventLog): EventCursor | null {
  const raw =
    req.get('Last-Event-ID') ?? new URL(req.originalUrl, 'http://localhost').searchParams.get('lastEventId');
  return raw === undefined || raw === null ? null : log.cursorOf(raw);
}

export async function eventStream(req: Request, res: Response, context: EventStreamContext): Promise<void> {
  const { account, data, changes } = context;
  const options = { values: booleanParam(req.query['values'], 'values') };
  let cursor = lastEventId(req, data.eventLog) ?? (await data.eventLog.head());
  let closed = false;
  let pumping: Promise<void> | null = null;
  let again = false;

  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write('retry: 3000\n: connected\n\n');

  const pump = async (): Promise<void> => {
    for (;;) {
      const { events, next } = await data.eventsAfter(account, cursor, BATCH, options);
      for (const event of events) {
        if (closed) return;
        res.write(`id: ${event.cursor}\nevent: ${event.data.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
      }
      const advanced = next !== cursor;
      cursor = next;
      if (!advanced || closed) return;
    }
  };
  /** Runs one pump at a time; a wake-up during a pump runs one more afterwards. */
  const wake = (): void => {
    if (closed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump()
      .catch(() => {
        closed = true;
        res.end();
      })
      .finally(() => {
        pumping = null;
        if (again) {
          again = false;
          wake();
        }
      });
  };

  const unsubscribe = changes.subscribe(wake);
  const heartbeat = setInterval(() => {
    res.write(': heartbeat\n\n');
    wake();
  }, context.heartbeatMs ?? HEARTBEAT_MS);
  req.on('close', () => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
  });
  wake();
}
