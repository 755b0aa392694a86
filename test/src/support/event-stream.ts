/**
 * A client of the change event stream (`GET /data/{tenant}/eventStream`, docs/events.md) for the
 * black-box suites: `openEventStream(api)` connects with the system key (or `key`), `take(n)` waits
 * for the next n events (comments skipped), `close()` disconnects.
 */
import type { DataApi, Json } from '../data-api.js';

export interface StreamEvent {
  readonly id: number;
  readonly event: string;
  readonly data: Json;
}

/** An open event stream: `take(n)` waits for the next n events (comments skipped). */
export class EventStreamClient {
  private buffer = '';
  private readonly queue: StreamEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    if (!response.body) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  private parse(): void {
    for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        if (line.startsWith(':') || line === '') continue;
        const colon = line.indexOf(':');
        fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      const data = fields.get('data');
      if (data !== undefined) {
        this.queue.push({
          id: Number(fields.get('id')),
          event: fields.get('event') ?? '',
          data: JSON.parse(data) as Json,
        });
      }
    }
  }

  async take(count: number, timeoutMs = 5000): Promise<StreamEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out with ${this.queue.length}/${count} events`);
      // The timer is cleared once the read wins: left running, it would hold the test process for
      // up to `timeoutMs` after the suite ended (a jest worker that cannot exit gracefully).
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), remaining))),
      ]).finally(() => clearTimeout(timer));
      if (chunk === null) continue;
      if (chunk.done) throw new Error('stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      this.parse();
    }
    return this.queue.splice(0, count);
  }

  /** Events that arrive within `ms` (for asserting that nothing else came). */
  async drain(ms: number): Promise<StreamEvent[]> {
    try {
      await this.take(Number.MAX_SAFE_INTEGER, ms);
    } catch {
      // timed out: whatever arrived is in the queue
    }
    return this.queue.splice(0);
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * Connects to the tenant's event stream on `api`'s server (with a key, or through a stream token's
 * `href`; `query` such as `values=true` is added to the stream's path); resolves once the response
 * headers arrived.
 */
export async function openEventStream(
  api: DataApi,
  options: { key?: string; lastEventId?: number; href?: string; query?: string } = {},
): Promise<EventStreamClient> {
  const abort = new AbortController();
  // With `href` (a stream token's URL) no credential header is sent, as from a browser's EventSource.
  const headers: Record<string, string> =
    options.href === undefined ? { 'X-API-Key': options.key ?? api.systemKey } : {};
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  const path = options.href ?? api.path(`/eventStream${options.query ? `?${options.query}` : ''}`);
  const response = await fetch(`${api.server.baseUrl}${path}`, {
    headers,
    signal: abort.signal,
  });
  return new EventStreamClient(response, abort);
}
