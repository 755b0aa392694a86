import { Writable } from 'node:stream';
import { createLogger } from './log.js';

/** A stream recording each write call, so the test sees how lines were grouped. */
function recorder(): { out: Writable; writes: string[] } {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { out, writes };
}

const messages = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { message: string }).message);

describe('createLogger', () => {
  it('writes the info lines of one turn together, one JSON object per line, on the next turn', async () => {
    const { out, writes } = recorder();
    const log = createLogger(out);
    log.info('a', { status: 200 });
    log.info('b');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(messages(writes[0] ?? '')).toEqual(['a', 'b']);
    expect(JSON.parse(writes[0]?.split('\n')[0] ?? '')).toMatchObject({ level: 'info', status: 200 });
  });

  it('writes an error at once, after the info lines held before it', () => {
    const { out, writes } = recorder();
    const log = createLogger(out);
    log.info('before');
    log.error('failed', { error: 'boom' });
    expect(writes.flatMap(messages)).toEqual(['before', 'failed']);
  });

  it('writes held lines on flush (before the process exits)', () => {
    const { out, writes } = recorder();
    const log = createLogger(out);
    log.info('shutting down');
    log.flush();
    expect(writes.flatMap(messages)).toEqual(['shutting down']);
  });
});
