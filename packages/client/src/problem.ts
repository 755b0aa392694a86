/**
 * The api's errors as values: every refused request answers `application/problem+json` (RFC 9457,
 * docs/errors.md), which the client turns into an `OdpProblem` with its per-field `errors`.
 */

/** One field's complaint in a problem (`{field, message}`). */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A refused request: the problem body the api answered, as an Error a caller can catch. */
export class OdpProblem extends Error {
  override name = 'OdpProblem';
  /** The problem type URI (`urn:odp:problem:...`, or `about:blank`). */
  readonly type: string;
  readonly title: string;
  /** The HTTP status. */
  readonly status: number;
  readonly detail: string | undefined;
  /** Per-field errors (validation); empty when the problem names none. */
  readonly errors: readonly FieldError[];
  /** The whole problem body, members the class does not name included (`code`, `reason`, ...). */
  readonly body: Readonly<Record<string, unknown>>;

  constructor(status: number, body: Readonly<Record<string, unknown>>) {
    const text = (key: string): string | undefined => (typeof body[key] === 'string' ? body[key] : undefined);
    const title = text('title') ?? `HTTP ${status}`;
    const detail = text('detail');
    super(detail === undefined ? title : `${title}: ${detail}`);
    this.type = text('type') ?? 'about:blank';
    this.title = title;
    this.status = status;
    this.detail = detail;
    this.errors = Array.isArray(body['errors']) ? body['errors'].filter(isFieldError) : [];
    this.body = body;
  }

  /** In a batch: the index (from 0) of the operation that was refused. */
  get operation(): number | undefined {
    return typeof this.body['operation'] === 'number' ? this.body['operation'] : undefined;
  }

  /** On a 412: the object's current version (its `ETag`). */
  get etag(): string | undefined {
    return typeof this.body['etag'] === 'string' ? this.body['etag'] : undefined;
  }

  /** The message of one field's error, when the problem names that field. */
  fieldError(field: string): string | undefined {
    return this.errors.find((error) => error.field === field)?.message;
  }
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry['field'] === 'string' && typeof entry['message'] === 'string';
}

/** The problem of a response that was not ok (a body that is no problem JSON keeps its text as detail). */
export async function problemOf(response: Response): Promise<OdpProblem> {
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      return new OdpProblem(response.status, body as Record<string, unknown>);
    }
  } catch {
    // not JSON: described below
  }
  return new OdpProblem(response.status, {
    title: response.statusText || `HTTP ${response.status}`,
    detail: text,
  });
}
