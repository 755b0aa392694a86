/**
 * Structured logging: one JSON object per line. Callers pass only client-safe fields; credential
 * values, hashes and request headers are never logged.
 *
 * Info lines are written once per event-loop turn, all lines of the turn in one write (stdout to a
 * pipe or file is a blocking system call per write, which one line per request made a visible
 * share of a request's cost). Error lines are written at once, after the info lines before them.
 */
export interface Logger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** Writes the info lines held for this turn now; call it before the process exits. */
  flush(): void;
}

export function createLogger(out: NodeJS.WritableStream = process.stdout): Logger {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const lines = pending;
    pending = '';
    out.write(lines);
  };
  const line = (level: string, message: string, fields: Readonly<Record<string, unknown>> = {}) =>
    JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }) + '\n';
  return {
    info: (message, fields) => {
      pending += line('info', message, fields);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    error: (message, fields) => {
      pending += line('error', message, fields);
      flush();
    },
    flush,
  };
}
