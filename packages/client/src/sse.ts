/**
 * Server-Sent Events over `fetch` (the WHATWG parsing rules: `id`, `event`, `data`, `retry`, comment
 * lines), so the change event stream reads the same in browsers and in Node 20, which has no
 * `EventSource`, and can send the credential header that an `EventSource` cannot.
 */

/** One dispatched message. */
export interface SseMessage {
  readonly id: string;
  readonly event: string;
  readonly data: string;
}

/** Feeds text chunks; calls `onMessage` per dispatched message and `onRetry` per `retry:` line. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private lastId = '';

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly onRetry: (ms: number) => void = () => {},
  ) {}

  /** The id of the last message that set one (sent back as `Last-Event-ID`). */
  get lastEventId(): string {
    return this.lastId;
  }

  push(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone `\r` at the end may be the first half of `\r\n`: wait for the next chunk.
      if (end < 0 || (end === this.buffer.length - 1 && this.buffer[end] === '\r')) return;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'data') this.data.push(value);
    else if (name === 'event') this.event = value;
    else if (name === 'id' && !value.includes('\0')) this.lastId = value;
    else if (name === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
  }

  private dispatch(): void {
    if (this.data.length > 0) {
      this.onMessage({ id: this.lastId, event: this.event || 'message', data: this.data.join('\n') });
    }
    this.data = [];
    this.event = '';
  }
}
