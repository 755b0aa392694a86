/**
 * How the object data routes answer a write: the specification's status with `Location` and no
 * body, or, with `Prefer: return=representation` (RFC 7240), the written object as Get one renders
 * it for the same account.
 */
import type { Request, Response } from 'express';
import { NotFoundError } from '@odp/core';
import type { Account } from '@odp/core';
import type { DataObject, DataResources, WrittenResource } from '@odp/data';
import { sendObjectJson } from '../sliced-json.js';

/** Whether the client asked for the written object in the response (`Prefer: return=representation`, RFC 7240). */
export function prefersRepresentation(req: Request): boolean {
  return /(^|[\s,;])return\s*=\s*"?representation"?($|[\s,;])/i.test(req.get('Prefer') ?? '');
}

/** Object `id` as Get one renders it for `account`, or null when the account may not read it (or it is gone). */
export function readableObject(
  data: DataResources,
  account: Account,
  id: string,
): Promise<DataObject | null> {
  return data.objects.reads.read(account, id).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
}

/**
 * Answers a write with `status`, its `Location` and no body, as the spec says; with
 * `Prefer: return=representation`, with `withBody` and the written object as Get one renders it for
 * the same account (`Preference-Applied` says so), saving the client a round trip. An object the
 * account may write but not read is answered without a body. Resolves the body sent, if any.
 */
export async function answerWrite(
  req: Request,
  res: Response,
  write: {
    account: Account;
    data: DataResources;
    written: WrittenResource;
    status: number;
    withBody: number;
  },
): Promise<DataObject | null> {
  const { account, data, written, status, withBody } = write;
  res.location(written.href);
  const object = prefersRepresentation(req) ? await readableObject(data, account, written.id) : null;
  if (object === null) {
    res.status(status).end();
    return null;
  }
  await sendObjectJson(
    req,
    res.status(withBody).setHeader('Preference-Applied', 'return=representation'),
    object,
  );
  return object;
}
