/**
 * A real SMTP server on 127.0.0.1 for Mail gateway tests (`smtp-server`, plain SMTP without TLS or
 * authentication): every accepted message is parsed (`mailparser`) and recorded; `rejectWith`
 * answers the next messages with SMTP error replies instead.
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Answers the next messages with these SMTP reply codes (then accepts). */
  rejectWith(...codes: number[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const rejections: number[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // close() ends open sessions after this long instead of the default 30 s, which outlived the tests.
    closeTimeout: 100,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const code = rejections.shift();
          if (code !== undefined) {
            callback(Object.assign(new Error(`rejected with ${code}`), { responseCode: code }));
            return;
          }
          const headers: Record<string, string> = {};
          for (const [name, value] of mail.headers) if (typeof value === 'string') headers[name] = value;
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            headers,
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rejectWith: (...codes) => rejections.push(...codes),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return messages.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
