/**
 * The tenant's change event stream (docs/events.md) as an async iterable that reconnects: when the
 * connection ends or fails, it waits the stream's `retry` time and connects again with the id of
 * the last event received (`Last-Event-ID`), so no event is lost or repeated. With `viaToken` it
 * opens the stream as a browser's `EventSource` would, with a stream token in the URL and no
 * credential header, asking for a fresh token on every connection (a token lives 15 minutes).
 */
import { problemOf } from './problem.js';
import { SseParser } from './sse.js';
import { queryString } from './transport.js';
import type { Transport } from './transport.js';

/** One change, as the stream sends it. */
export interface ChangeEvent {
  /** The event's cursor in the tenant's log (opaque). */
  readonly id: string;
  readonly type: 'create' | 'update' | 'delete' | 'merge';
  readonly href: string;
  readonly classes: readonly string[];
  readonly at: string;
  /** Names of what changed, as far as this account may see (absent: unknown, re-read the object). */
  readonly changed?: readonly string[];
  /** With `values: true`: the current values of the changed names. */
  readonly values?: Readonly<Record<string, unknown>>;
  /** Merge only: the merged-away object. */
  readonly loser?: string;
}

export interface EventStreamOptions {
  /** Ask for `values` of the changed names (`?values=true`). */
  readonly values?: boolean;
  /** Resume after this event id (else the stream starts with the events after connecting). */
  readonly lastEventId?: string;
  /** Open the stream with a stream token in the URL instead of the credential header. */
  readonly viaToken?: boolean;
  /** Ends the stream. Breaking out of the `for await` loop ends it too. */
  readonly signal?: AbortSignal;
}

/** A stream token: opens `href` without headers for 15 minutes. */
export interface StreamToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly href: string;
}

const FIRST_RETRY_MS = 3000;

export function streamToken(transport: Transport, values = false): Promise<StreamToken> {
  return transport.json<StreamToken>(
    transport.dataPath('eventStream', 'token') + queryString({ values: values || undefined }),
  );
}

export async function* changeEvents(
  transport: Transport,
  options: EventStreamOptions = {},
): AsyncGenerator<ChangeEvent> {
  let lastEventId = options.lastEventId ?? '';
  let retryMs = FIRST_RETRY_MS;
  const ended = (): boolean => options.signal?.aborted === true;
  while (!ended()) {
    const abort = new AbortController();
    const stop = () => abort.abort();
    options.signal?.addEventListener('abort', stop);
    try {
      const response = await connect(transport, options, lastEventId, abort.signal);
      if (response.status === 429 || response.status >= 500) {
        retryMs = Number(response.headers.get('retry-after') ?? 0) * 1000 || retryMs;
        await response.body?.cancel();
      } else if (!response.ok) {
        throw await problemOf(response);
      } else {
        const queue: ChangeEvent[] = [];
        const parser = new SseParser(
          (message) =>
            queue.push({ ...(JSON.parse(message.data) as Omit<ChangeEvent, 'id'>), id: message.id }),
          (ms) => (retryMs = ms),
        );
        for await (const chunk of textOf(response, abort.signal)) {
          parser.push(chunk);
          for (const event of queue.splice(0)) {
            lastEventId = event.id;
            yield event;
          }
        }
      }
    } catch (error) {
      if (!isConnectionEnd(error, abort.signal)) throw error;
    } finally {
      options.signal?.removeEventListener('abort', stop);
      abort.abort();
    }
    if (!ended()) await sleep(retryMs, options.signal);
  }
}

async function connect(
  transport: Transport,
  options: EventStreamOptions,
  lastEventId: string,
  signal: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (lastEventId !== '') headers['Last-Event-ID'] = lastEventId;
  if (options.viaToken === true) {
    const { href } = await streamToken(transport, options.values);
    return transport.raw(href, { headers, signal, credential: false });
  }
  const path = transport.dataPath('eventStream') + queryString({ values: options.values || undefined });
  return transport.raw(path, { headers, signal, credential: true });
}

async function* textOf(response: Response, signal: AbortSignal): AsyncGenerator<string> {
  if (response.body === null) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!signal.aborted) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** A network failure or an end asked for ends a connection; a refusal or a bad event does not. */
function isConnectionEnd(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return true;
  return error instanceof TypeError;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done);
  });
}
