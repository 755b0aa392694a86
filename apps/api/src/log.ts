/**
 * Structured logging: one JSON object per line. Callers pass only client-safe fields; credential
 * values, hashes and request headers are never logged.
 */
export interface Logger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export function createLogger(out: NodeJS.WritableStream = process.stdout): Logger {
  const write = (level: string, message: string, fields: Readonly<Record<string, unknown>> = {}) => {
    out.write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }) + '\n');
  };
  return {
    info: (message, fields) => write('info', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}
