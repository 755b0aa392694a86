/**
 * The bounds of one batch request (`ODP_BATCH_MAX_OPERATIONS`, `ODP_BATCH_MAX_BYTES`): a larger
 * batch answers 413 before any of its operations is resolved, so one request cannot hold a
 * tenant's store in one long transaction.
 */
import type { BatchConfig } from '@odp/config';
import { AppError } from '@odp/core';

/** PAYLOAD_TOO_LARGE (413) for a batch body over `limits`; other bodies pass (the parser judges them). */
export function assertBatchLimits(body: unknown, limits: BatchConfig): void {
  const operations =
    typeof body === 'object' && body !== null ? (body as { operations?: unknown }).operations : undefined;
  if (!Array.isArray(operations)) return;
  if (operations.length > limits.maxOperations) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `A batch holds at most ${limits.maxOperations} operations; this one has ${operations.length}.`,
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(operations));
  if (bytes > limits.maxBytes) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `A batch's operations take at most ${limits.maxBytes} bytes as JSON; these take ${bytes}.`,
    );
  }
}
