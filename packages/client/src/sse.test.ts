import { SseParser } from './sse.js';
import type { SseMessage } from './sse.js';

/** The messages and retry times of `chunks` fed one after the other. */
function parse(chunks: readonly string[]): { messages: SseMessage[]; retries: number[] } {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const parser = new SseParser(
    (message) => messages.push(message),
    (ms) => retries.push(ms),
  );
  for (const chunk of chunks) parser.push(chunk);
  return { messages, retries };
}

describe('SseParser', () => {
  it('dispatches on a blank line, with the id, the event name and the data', () => {
    const { messages, retries } = parse(['retry: 3000\n\nid: 42\nevent: update\ndata: {"a":1}\n\n']);
    expect(retries).toEqual([3000]);
    expect(messages).toEqual([{ id: '42', event: 'update', data: '{"a":1}' }]);
  });

  it('reads lines split across chunks, CRLF and CR line ends, multi-line data and comments', () => {
    const { messages } = parse([
      ': heartbeat\r',
      '\nid: 7\r\nda',
      'ta: one\rdata:two\r',
      '\n\r\n',
      'data: x\n',
    ]);
    expect(messages).toEqual([{ id: '7', event: 'message', data: 'one\ntwo' }]);
  });

  it('keeps the last id for later messages and ignores an id with NUL and unknown fields', () => {
    const { messages } = parse(['id: 1\ndata: a\n\nid: b\0c\nfoo: bar\ndata: b\n\n']);
    expect(messages.map((message) => message.id)).toEqual(['1', '1']);
  });
});
