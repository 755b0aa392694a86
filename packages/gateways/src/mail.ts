/**
 * The Mail gateway (interface spec, Gateway `Mail`): one transactional e-mail over SMTP
 * (`ODP_SMTP_URL`, nodemailer).
 *
 * - `to` (one address), `subject` and `body` are required; a missing or malformed one fails the
 *   call without retry.
 * - `body` is sent as HTML only when the call says the model wrote it as HTML (`htmlBody`: a
 *   template or literal value with markup, whose values were escaped when it was rendered);
 *   otherwise it is text, sent with both parts: the text, and its HTML-escaped form. Markup that
 *   arrives inside a value (an object's field, a person's name) never turns a message into HTML.
 * - `ctaHref` (http or https) with `ctaName` (default: the href) adds a call-to-action button to the
 *   HTML part and a `name: href` line to the text part.
 * - Outcome: accepted by the server succeeds. Connection failures, timeouts and SMTP 4xx replies are
 *   transient (retried); SMTP 5xx replies (a rejected recipient) are not.
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { GatewayCall } from './gateway.js';
import { GatewayError } from './gateway.js';

/** One e-mail address (no display name); `name@localhost` too, for local test servers. */
export const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$|^[^\s@<>(),;:"]+@localhost$/i;

export interface MailOptions {
  /** `smtp://` or `smtps://` URL of the mail server (with credentials when it needs them). */
  readonly smtpUrl: string;
  /** The From address. */
  readonly from: string;
  /** Connection and reply timeout per call. Default 10 s. */
  readonly timeoutMs?: number;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );
}

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text?: string;
  readonly html: string;
}

/**
 * The message the parameters describe, its body HTML when `htmlBody` says so (see the module
 * comment); GatewayError (not retryable) for bad parameters.
 */
export function mailMessage(
  parameters: Readonly<Record<string, string | null>>,
  htmlBody = false,
): MailMessage {
  const to = parameters['to']?.trim() ?? '';
  const subject = parameters['subject']?.trim() ?? '';
  const body = parameters['body'] ?? '';
  if (!EMAIL.test(to))
    throw new GatewayError('The mail parameter to is missing or not an e-mail address.', false);
  if (subject === '') throw new GatewayError('The mail parameter subject is required.', false);
  if (/[\r\n]/.test(subject)) throw new GatewayError('The mail subject must be one line.', false);
  if (body.trim() === '') throw new GatewayError('The mail parameter body is required.', false);
  const ctaHref = parameters['ctaHref']?.trim() || null;
  const ctaName = parameters['ctaName']?.trim() || ctaHref;
  if (ctaHref !== null) {
    let protocol = '';
    try {
      protocol = new URL(ctaHref).protocol;
    } catch {
      // refused below
    }
    if (protocol !== 'https:' && protocol !== 'http:') {
      throw new GatewayError('The mail parameter ctaHref must be an http or https URL.', false);
    }
  }
  const button =
    ctaHref === null
      ? ''
      : `<p><a href="${escapeHtml(ctaHref)}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(ctaName ?? ctaHref)}</a></p>`;
  const html = `${htmlBody ? body : `<p>${escapeHtml(body).replace(/\n/g, '<br>')}</p>`}${button}`;
  if (htmlBody) return { to, subject, html };
  return { to, subject, html, text: ctaHref === null ? body : `${body}\n\n${ctaName}: ${ctaHref}` };
}

export class MailGateway {
  private readonly transport: Transporter;

  constructor(private readonly options: MailOptions) {
    const timeout = options.timeoutMs ?? 10_000;
    this.transport = nodemailer.createTransport(options.smtpUrl, {
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  /** Sends the call's e-mail; resolves the server's message id or throws GatewayError. */
  async send(call: GatewayCall): Promise<string> {
    const message = mailMessage(call.parameters, call.htmlBody === true);
    try {
      const info = (await this.transport.sendMail({
        from: this.options.from,
        ...message,
        headers: { 'X-ODP-Delivery': call.id },
      })) as { messageId: string };
      return info.messageId;
    } catch (error) {
      const code = (error as { responseCode?: unknown }).responseCode;
      const permanent = typeof code === 'number' && code >= 500;
      const reason = typeof code === 'number' ? `SMTP ${code}` : (error as Error).message;
      throw new GatewayError(`The mail server did not accept the message: ${reason}`, !permanent);
    }
  }

  close(): void {
    this.transport.close();
  }
}
