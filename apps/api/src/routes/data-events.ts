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
 *
 * Budgets, so that one tenant's streams cannot stall or starve another tenant (docs/events.md,
 * "Paging and backpressure"): the stream is admitted by the tenant's {@link TenantEventStreams}
 * (429 past `ODP_TENANT_EVENT_STREAMS`) and ends when they end (the tenant deleted); events are read
 * in pages of at most {@link PAGE_EVENTS} events and `ODP_MAX_PAGE_BYTES` of JSON; a page is written
 * as one chunk, the next is read only once the client has taken it (`drain`), and the stream yields
 * to the event loop between pages, so other requests are served between two pages.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { Account, EventCursor, EventLog } from '@odp/core';
import type { ChangeSignal, EventPage, ObjectService, StreamEvent } from '@odp/data';
import type { TenantEventStreams } from '@odp/platform';
import { booleanParam } from './boolean-param.js';

export const HEARTBEAT_MS = 15_000;
/** Events read from the log for one page (fewer are sent when their JSON passes the byte budget). */
export const PAGE_EVENTS = 200;

export interface EventStreamContext {
  readonly account: Account;
  readonly objects: ObjectService;
  readonly changes: ChangeSignal;
  /** The tenant's open streams in this process: admits this one, or refuses it (429). */
  readonly streams: TenantEventStreams;
  /**
   * Takes the tenant's turn in the process's fair share for one page of the replay, charged to the
   * tenant like a request (`FairShare.turn` bound to the tenant).
   */
  readonly turn: <T>(work: () => Promise<T>) => Promise<T>;
  /** Heartbeat interval; {@link HEARTBEAT_MS} when absent. */
  readonly heartbeatMs?: number;
}

/** The cursor the client resumes after (`Last-Event-ID`, or `?lastEventId=`); null when absent or not one of the log's. */
function lastEventId(req: Request, log: EventLog): EventCursor | null {
  const raw =
    req.get('Last-Event-ID') ?? new URL(req.originalUrl, 'http://localhost').searchParams.get('lastEventId');
  return raw === undefined || raw === null ? null : log.cursorOf(raw);
}

/** One event as an SSE message. */
function message(event: StreamEvent): string {
  return `id: ${event.cursor}\nevent: ${event.data.type}\ndata: ${event.json}\n\n`;
}

/** Resolves once `res` has sent what it buffered (`drain`), or has closed. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export async function eventStream(req: Request, res: Response, context: EventStreamContext): Promise<void> {
  const { account, objects, changes } = context;
  const options = { values: booleanParam(req.query['values'], 'values') };
  let cursor = lastEventId(req, objects.eventLog) ?? (await objects.eventLog.head());
  let closed = false;
  let pumping: Promise<void> | null = null;
  let again = false;
  // Admitted last before the response starts: a refusal is an ordinary 429 problem response.
  const release = context.streams.admit(() => stop());

  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write('retry: 3000\n: connected\n\n');

  /**
   * One page of events after the cursor, read and written to the socket in one fair-share turn of
   * the tenant: the write of a page of large values (encoding it, copying it to the socket) is
   * work of the turn, charged to the tenant like the read. Resolves where the next page starts and
   * whether the socket took the page without buffering.
   */
  const sendPage = (): Promise<{ next: EventCursor; flushed: boolean }> =>
    context.turn(async () => {
      const { events, next }: EventPage = await objects.events.after(account, cursor, PAGE_EVENTS, options);
      const flushed = closed || events.length === 0 || res.write(events.map(message).join(''));
      return { next, flushed };
    });
  const pump = async (): Promise<void> => {
    for (;;) {
      const { next, flushed } = await sendPage();
      if (closed) return;
      if (!flushed) await drained(res);
      const advanced = next !== cursor;
      cursor = next;
      if (!advanced || closed) return;
      await nextTurn();
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
      .catch(() => stop())
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
  /** Ends the stream: the client left, a read failed, or the tenant's streams ended (deletion). */
  const stop = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    release();
    res.end();
  };
  req.on('close', stop);
  wake();
}
