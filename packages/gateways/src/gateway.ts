/**
 * What the worker hands a gateway and how a gateway reports failure. A gateway either resolves
 * (the external call succeeded) or throws a {@link GatewayError} saying whether waiting can help.
 */

/** One call of a gateway by a script: the job's parameters, resolved when the script fired. */
export interface GatewayCall {
  /** The job id: sent along (`X-ODP-Delivery`) so a receiver can drop a repeated delivery. */
  readonly id: string;
  readonly tenantId: string;
  readonly parameters: Readonly<Record<string, string | null>>;
  /** The href of the object whose script made the call (the usage record's `reference`); null when none. */
  readonly reference?: string | null;
  /**
   * Mail: the `body` parameter is HTML because the model wrote it so (a template or a literal value
   * with markup, decided when the script fired, before any value was put in). Otherwise the body is
   * text, whatever markup its values hold. Never decided from the resolved text.
   */
  readonly htmlBody?: boolean;
}

/**
 * A failed call. `retryable`: a transient failure (network, timeout, HTTP 429 or 5xx) that the
 * retry schedule tries again; otherwise (HTTP 4xx, a bad parameter, a refused address) it is not.
 */
export class GatewayError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
