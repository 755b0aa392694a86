/**
 * A response read completely, as the flood suites (`noisy-neighbour`, `isolation-floods`) compare
 * them: status, the headers a refusal carries, and the body text; and what a refusal must be.
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

/** Every 429 among `outcomes` is problem+json with `Retry-After: 1`; returns how many there are. */
export function expectWellFormedRefusals(outcomes: readonly Outcome[]): number {
  const refused = outcomes.filter((entry) => entry.status === 429);
  for (const entry of refused) {
    expect(entry.retryAfter).toBe('1');
    expect(entry.contentType).toContain('application/problem+json');
    expect(JSON.parse(entry.body)).toMatchObject({
      type: 'urn:odp:problem:rate-limited',
      status: 429,
      retryAfter: 1,
    });
  }
  return refused.length;
}
