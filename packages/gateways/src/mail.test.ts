import { GatewayError } from './gateway.js';
import { MailGateway, mailMessage } from './mail.js';
import { startSmtpReceiver } from '../test/index.js';
import type { SmtpReceiver } from '../test/index.js';

describe('mail message', () => {
  it('sends plain text with its escaped HTML form and a call-to-action line and button', () => {
    const message = mailMessage({
      to: 'ann@example.test',
      subject: 'Invoice 1',
      body: 'Total 5 < 6 & more\nsecond line',
      ctaHref: 'https://app.example.test/invoices/1',
      ctaName: 'Open "invoice"',
    });
    expect(message).toMatchObject({ to: 'ann@example.test', subject: 'Invoice 1' });
    expect(message.text).toBe(
      'Total 5 < 6 & more\nsecond line\n\nOpen "invoice": https://app.example.test/invoices/1',
    );
  });

  it('keeps a body the model wrote as HTML as HTML', () => {
    const message = mailMessage({ to: 'a@b.test', subject: 's', body: '<h1>Hi</h1>' }, true);
    expect(message).toEqual({ to: 'a@b.test', subject: 's', html: '<h1>Hi</h1>' });
  });

  it('sends a text body as text whatever markup it holds: escaped in the HTML part', () => {
    const body = 'Hello Eve<script>alert(1)</script>, <a href="https://evil.test/">Accept</a>';
    const message = mailMessage({ to: 'a@b.test', subject: 's', body });
    expect(message.text).toBe(body);
    expect(message.html).toBe(
      '<p>Hello Eve&lt;script&gt;alert(1)&lt;/script&gt;, &lt;a href=&quot;https://evil.test/&quot;&gt;Accept&lt;/a&gt;</p>',
    );
  });

  it.each([
    [{ subject: 's', body: 'b' }, 'to'],
    [{ to: 'not an address', subject: 's', body: 'b' }, 'to'],
    [{ to: 'a@b.test', body: 'b' }, 'subject'],
    [{ to: 'a@b.test', subject: 'a\r\nBcc: x@y.test', body: 'b' }, 'one line'],
    [{ to: 'a@b.test', subject: 's', body: ' ' }, 'body'],
    [{ to: 'a@b.test', subject: 's', body: 'b', ctaHref: 'javascript:alert(1)' }, 'ctaHref'],
  ])('refuses %j without retry', (parameters, message) => {
    let error: unknown;
    try {
      mailMessage(parameters);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).retryable).toBe(false);
    expect((error as Error).message).toContain(message);
  });
});

describe('mail gateway against a local SMTP server', () => {
  let smtp: SmtpReceiver;
  let gateway: MailGateway;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    gateway = new MailGateway({
      smtpUrl: smtp.url,
      from: 'ODP <no-reply@odp.example.test>',
      timeoutMs: 5000,
    });
  });
  afterAll(async () => {
    gateway.close();
    await smtp.close();
  });
  beforeEach(() => smtp.messages.splice(0));

  const call = (parameters: Record<string, string | null>) => ({ id: 'job-9', tenantId: 't', parameters });

  it('delivers the message with both parts, the button and the delivery header', async () => {
    await gateway.send(
      call({
        to: 'ann@example.test',
        subject: 'Your invoice',
        body: 'Hello Ann & co',
        ctaHref: 'https://app.example.test/i/1',
        ctaName: 'Open',
      }),
    );
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({
      from: 'no-reply@odp.example.test',
      to: ['ann@example.test'],
      subject: 'Your invoice',
    });
    expect(mail?.text.trim()).toBe('Hello Ann & co\n\nOpen: https://app.example.test/i/1');
    expect(mail?.html).toContain('<p>Hello Ann &amp; co</p>');
    expect(mail?.html).toContain('<a href="https://app.example.test/i/1"');
    expect(mail?.headers['x-odp-delivery']).toBe('job-9');
  });

  it('retries SMTP 4xx replies and connection failures, not 5xx', async () => {
    smtp.rejectWith(451, 550);
    const parameters = { to: 'a@example.test', subject: 's', body: 'b' };
    await expect(gateway.send(call(parameters))).rejects.toMatchObject({
      retryable: true,
      message: expect.stringContaining('451'),
    });
    await expect(gateway.send(call(parameters))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('550'),
    });
    const closed = new MailGateway({
      smtpUrl: 'smtp://127.0.0.1:1',
      from: 'x@example.test',
      timeoutMs: 2000,
    });
    await expect(closed.send(call(parameters))).rejects.toMatchObject({ retryable: true });
    closed.close();
    expect(smtp.messages).toEqual([]);
  });
});
