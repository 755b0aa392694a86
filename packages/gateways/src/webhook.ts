/**
 * The Webhook gateway (interface spec, Gateway `Webhook`): one HTTPS request per call.
 *
 * - `url` must be HTTPS; `method` defaults to POST (GET, POST, PUT, PATCH, DELETE).
 * - `payload_<name>`: for POST, PUT and PATCH one key of a flat JSON object body; for GET and DELETE
 *   one query parameter (appended to those of the URL). Values are strings (null stays null in a body
 *   and is left out of a query).
 * - `header.<name>`: an additional request header; the platform's own headers cannot be overridden.
 * - Signed: `X-ODP-Timestamp` (Unix seconds) and `X-ODP-Signature: sha256=<hex>`, the HMAC-SHA256
 *   with the tenant's webhook secret of `<timestamp>\n<METHOD>\n<path and query>\n<body>`;
 *   `X-ODP-Delivery` is the job id (the same on every retry, for de-duplication).
 * - SSRF-safe: the host is resolved once and checked by the {@link AddressPolicy}; the connection goes
 *   to that address only; each redirect (at most 5, HTTPS only) is checked and pinned again.
 * - A redirect to another origin (scheme, host, port) loses the `header.<name>` headers for the rest
 *   of the chain, and one that would repeat a body there (307, 308 of POST, PUT, PATCH) is refused.
 *   A redirect within the origin keeps them.
 * - Outcome: 2xx succeeds; 429, 5xx, network errors and timeouts are retryable; other statuses and
 *   bad parameters are not. A request hop waits at most 10 s for data and 30 s in all.
 */
import { createHmac } from 'node:crypto';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy, ResolvedAddress } from './address-policy.js';
import { AddressRefusedError } from './address-policy.js';
import type { GatewayCall } from './gateway.js';
import { GatewayError } from './gateway.js';

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);
const MAX_REDIRECTS = 5;
/** Headers the platform sets; `header.<name>` parameters cannot replace them. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'x-odp-signature',
  'x-odp-timestamp',
  'x-odp-delivery',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface WebhookOptions {
  readonly policy: AddressPolicy;
  /** Extra trusted certificate authorities (PEM), besides the system's. */
  readonly ca?: readonly string[];
  /** Longest wait for data per request (each redirect hop). Default 10 s. */
  readonly timeoutMs?: number;
  /** Longest time per request (each redirect hop), however the data trickles. Default 30 s. */
  readonly deadlineMs?: number;
  readonly now?: () => Date;
}

/** What a webhook call needs besides its parameters: the tenant's signing secret. */
export interface WebhookCall extends GatewayCall {
  readonly secret: string;
}

interface PreparedRequest {
  readonly url: URL;
  readonly method: string;
  readonly body: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** The request the parameters describe; GatewayError (not retryable) for bad parameters. */
export function webhookRequest(parameters: Readonly<Record<string, string | null>>): PreparedRequest {
  const raw = parameters['url'];
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new GatewayError('The webhook url is missing or not a URL.', false);
  }
  if (url.protocol !== 'https:') throw new GatewayError('The webhook url must be HTTPS.', false);
  if (url.username !== '' || url.password !== '') {
    throw new GatewayError('The webhook url must not carry credentials.', false);
  }
  const method = (parameters['method'] ?? 'POST').trim().toUpperCase();
  if (!METHODS.has(method)) throw new GatewayError(`Unsupported webhook method ${method}.`, false);
  const payload: Record<string, string | null> = {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) {
    if (name.startsWith('payload_') && name.length > 'payload_'.length) {
      payload[name.slice('payload_'.length)] = value;
    } else if (name.startsWith('header.') && value !== null) {
      const header = name.slice('header.'.length);
      if (!HEADER_NAME.test(header) || RESERVED_HEADERS.has(header.toLowerCase())) {
        throw new GatewayError(`The header ${header} cannot be set by a script.`, false);
      }
      if (/[\r\n\0]/.test(value)) throw new GatewayError(`The value of header ${header} is invalid.`, false);
      headers[header] = value;
    }
  }
  let body: string | null = null;
  if (BODY_METHODS.has(method)) {
    body = JSON.stringify(payload);
    headers['Content-Type'] = 'application/json';
  } else {
    for (const [name, value] of Object.entries(payload))
      if (value !== null) url.searchParams.append(name, value);
  }
  return { url, method, body, headers };
}

/** `X-ODP-Signature` of a request (see the module comment); exported for receivers' tests. */
export function webhookSignature(
  secret: string,
  timestamp: string,
  method: string,
  pathAndQuery: string,
  body: string,
): string {
  const signed = `${timestamp}\n${method}\n${pathAndQuery}\n${body}`;
  return `sha256=${createHmac('sha256', secret).update(signed).digest('hex')}`;
}

export class WebhookGateway {
  constructor(private readonly options: WebhookOptions) {}

  /** Sends the call; resolves the final status (2xx) or throws GatewayError. */
  async send(call: WebhookCall): Promise<number> {
    let request = webhookRequest(call.parameters);
    for (let hop = 0; ; hop++) {
      const response = await this.dispatch(call, request);
      if (response.status >= 200 && response.status < 300) return response.status;
      if (response.status >= 300 && response.status < 400 && response.location !== null) {
        if (hop >= MAX_REDIRECTS) throw new GatewayError('Too many webhook redirects.', false);
        request = this.redirected(request, response.status, response.location);
        continue;
      }
      const retryable = response.status === 429 || response.status >= 500;
      throw new GatewayError(`The webhook answered HTTP ${response.status}.`, retryable);
    }
  }

  private redirected(request: PreparedRequest, status: number, location: string): PreparedRequest {
    let url: URL;
    try {
      url = new URL(location, request.url);
    } catch {
      throw new GatewayError('The webhook redirected to an invalid URL.', false);
    }
    if (url.protocol !== 'https:')
      throw new GatewayError('The webhook redirected to a non-HTTPS URL.', false);
    const repeat = status === 307 || status === 308;
    if (url.origin !== request.url.origin) {
      // The script named one receiver: its credentials (`header.<name>`, often a secret value) and
      // its body (`payload_<name>`) are for that origin only. Like fetch, the headers are dropped
      // (for the rest of the chain); unlike fetch, a body is never repeated to another origin.
      if (repeat && request.body !== null) {
        throw new GatewayError(
          `The webhook redirected the request with its body to another origin (${url.origin}); only a redirect within the origin repeats the body.`,
          false,
        );
      }
      return { url, method: repeat ? request.method : 'GET', body: null, headers: {} };
    }
    // 307 and 308 repeat the request; the others continue with a GET without body.
    if (repeat) return { ...request, url };
    const headers = { ...request.headers };
    delete headers['Content-Type'];
    return { url, method: 'GET', body: null, headers };
  }

  private async dispatch(
    call: WebhookCall,
    request: PreparedRequest,
  ): Promise<{ status: number; location: string | null }> {
    let pinned: ResolvedAddress;
    try {
      pinned = await this.options.policy.pin(request.url.hostname);
    } catch (error) {
      if (error instanceof AddressRefusedError) throw new GatewayError(error.message, false);
      throw new GatewayError(`The webhook host does not resolve: ${messageOf(error)}`, true);
    }
    const timestamp = String(Math.floor((this.options.now?.() ?? new Date()).getTime() / 1000));
    const pathAndQuery = `${request.url.pathname}${request.url.search}`;
    const body = request.body ?? '';
    const headers: Record<string, string> = {
      ...request.headers,
      'User-Agent': 'odp-webhook/1',
      'X-ODP-Delivery': call.id,
      'X-ODP-Timestamp': timestamp,
      'X-ODP-Signature': webhookSignature(call.secret, timestamp, request.method, pathAndQuery, body),
    };
    if (request.body !== null) headers['Content-Length'] = String(Buffer.byteLength(body));
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    return new Promise((resolve, reject) => {
      const req = https.request(
        request.url,
        {
          method: request.method,
          headers,
          lookup,
          agent: false,
          timeout: this.options.timeoutMs ?? 10_000,
          ...(this.options.ca ? { ca: [...this.options.ca] } : {}),
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, location: headerValue(res.headers.location) }),
          );
          res.on('error', (error) =>
            reject(new GatewayError(`The webhook response failed: ${error.message}`, true)),
          );
        },
      );
      const deadline = setTimeout(
        () => req.destroy(new Error('took too long')),
        this.options.deadlineMs ?? 30_000,
      );
      req.on('close', () => clearTimeout(deadline));
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) =>
        reject(new GatewayError(`The webhook request failed: ${error.message}`, true)),
      );
      req.end(request.body ?? undefined);
    });
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : (value?.[0] ?? null);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
