/**
 * The event-replay flood of the noisy-neighbour matrix: tenant A's log holds the create events of
 * notes with a 1 MB body each; several clients replay them with their values
 * (`GET /data/{A}/eventStream?lastEventId=<first>&values=true`, docs/events.md), read each stream
 * to the last of those events, close it and reconnect at once, until the flood ends. Every event's
 * data is read and the values' bytes counted, so the replay is what a real client receives.
 */
import http from 'node:http';
import { create, LARGE_VALUE_CHARS, largeText } from './floods.js';
import type { Flood, FloodContext } from './floods.js';

/** Large notes in A's log (each create event replayed with its 1 MB body). */
const replayed = (context: FloodContext) => (context.quick ? 10 : 50);
/** Concurrent replaying clients. */
const streams = (context: FloodContext) => (context.quick ? 2 : 4);

interface StreamRead {
  /** The stream's HTTP status (0: the connection failed). */
  readonly status: number;
  /** Events received, and the characters of those whose data carried `values`. */
  readonly events: number;
  readonly valueChars: number;
  /** The stream reached the event `until` accepted. */
  readonly complete: boolean;
}

/**
 * Reads an event stream of A until `until(id)` accepts an event's id, `signal` aborts, or the
 * stream ends; `onOpen` is called once the stream's headers arrived with 200.
 */
function readStream(
  context: FloodContext,
  query: string,
  until: (id: string) => boolean,
  signal: AbortSignal,
  onOpen?: () => void,
): Promise<StreamRead> {
  return new Promise((resolve) => {
    let events = 0;
    let valueChars = 0;
    let status = 0;
    let settled = false;
    const finish = (complete: boolean) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', abort);
      request.destroy();
      resolve({ status, events, valueChars, complete });
    };
    const abort = () => finish(false);
    const request = http.get(
      `${context.baseUrl}/data/${context.tenantId}/eventStream?${query}`,
      { headers: { 'x-api-key': context.key }, agent: false },
      (res) => {
        status = res.statusCode ?? 0;
        if (status !== 200) {
          res.resume();
          res.on('end', () => finish(false));
          return;
        }
        onOpen?.();
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let end: number;
          while ((end = buffered.indexOf('\n\n')) >= 0) {
            const message = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const id = /^id: (.*)$/m.exec(message)?.[1];
            const data = /^data: (.*)$/m.exec(message)?.[1];
            if (id === undefined || data === undefined) continue;
            events += 1;
            if (data.includes('"values":')) valueChars += data.length;
            if (until(id)) return finish(true);
          }
        });
        res.on('end', () => finish(false));
        res.on('error', () => finish(false));
      },
    );
    request.on('error', () => finish(false));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort);
  });
}

/** Writes a marker note then the large notes while a live stream reads their ids. */
async function seedLog(context: FloodContext): Promise<{ first: string; last: string }> {
  const count = replayed(context);
  const ids: string[] = [];
  let opened: () => void = () => undefined;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stop = new AbortController();
  const live = readStream(
    context,
    'values=false',
    (id) => ids.push(id) > count,
    stop.signal,
    () => opened(),
  );
  await Promise.race([open, live]);
  await create(context, 'notes', { subject: 'replay marker' });
  const body = largeText(LARGE_VALUE_CHARS);
  for (let i = 0; i < count; i += 1) await create(context, 'notes', { subject: `replay ${i}`, body });
  const timer = setTimeout(() => stop.abort(), 30_000);
  const read = await live;
  clearTimeout(timer);
  const [first, last] = [ids[0], ids[count]];
  if (!read.complete || first === undefined || last === undefined) {
    throw new Error(
      `The live event stream of A delivered ${ids.length} of ${count + 1} events (${read.status}).`,
    );
  }
  return { first, last };
}

export const REPLAY_FLOOD: Flood = {
  kind: 'event replay',
  describe: (c) =>
    `${streams(c)} clients replay GET /data/{A}/eventStream?lastEventId=<first>&values=true over ` +
    `${replayed(c)} creates of notes with a ${(LARGE_VALUE_CHARS / 1e6).toFixed(0)} MB body, ` +
    'each reading to the last of them and reconnecting',
  async prepare(context) {
    const { first, last } = await seedLog(context);
    const query = `lastEventId=${encodeURIComponent(first)}&values=true`;
    return async (seconds) => {
      const stop = AbortSignal.timeout(seconds * 1000);
      const outcomes = { ok: 0, refused: 0, other: 0 };
      let replays = 0;
      let valueChars = 0;
      const client = async () => {
        while (!stop.aborted) {
          const read = await readStream(context, query, (id) => id === last, stop);
          // A stream the end of the flood cut before its answer is no answer.
          if (read.status === 0 && stop.aborted) break;
          if (read.status === 200) outcomes.ok += 1;
          else if (read.status === 429) outcomes.refused += 1;
          else outcomes.other += 1;
          valueChars += read.valueChars;
          if (read.complete) replays += 1;
          if (read.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await Promise.all(Array.from({ length: streams(context) }, client));
      return {
        outcomes,
        note: `${replays} replays read to the end, ${(valueChars / 1e6).toFixed(0)} MB of values received`,
      };
    };
  },
};
