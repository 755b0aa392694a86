/**
 * A response read completely, as the flood suites (`noisy-neighbour`, `isolation-floods`) compare
 * them: status, the headers a refusal carries, and the body text.
 */
export interface Outcome {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly contentType: string | null;
  readonly body: string;
}

export async function outcome(response: Promise<Response>): Promise<Outcome> {
  const res = await response;
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type'),
    body: await res.text(),
  };
}
