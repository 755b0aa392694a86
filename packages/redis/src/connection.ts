/** Opening a Redis connection that answers, or failing with one line that names the server. */
import type { Redis } from 'ioredis';

/** Redis did not answer when a connection was opened; the message names host and port, never credentials. */
export class RedisUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisUnreachableError';
  }
}

/** Connects, failing on the first error or after `timeoutMs` instead of retrying forever. */
export async function connectOnce(client: Redis, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onError: ((error: Error) => void) | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise<never>((_, reject) => {
        onError = reject;
        client.once('error', onError);
        timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onError) client.off('error', onError);
  }
}

/** `host:port` of a redis URL: what an operator needs to find the server, without credentials. */
export function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured address';
  }
}

export function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'unknown error';
}
