/**
 * The background half seen from outside: the job list of a tenant (`GET /admin/{t}/jobs`), waiting
 * for a job to settle, running a MANUAL script, and creating system objects under `/system`.
 */
import type { DataApi, Json } from '../data-api.js';

export interface JobView {
  id: string;
  status: string;
  attempts: number;
  lastError: string | null;
  gateway: string | null;
  script: string | null;
  trigger: string | null;
  object: string | null;
}

export async function jobsOf(api: DataApi, query = ''): Promise<JobView[]> {
  const res = await fetch(`${api.server.baseUrl}/admin/${api.tenant}/jobs${query}`, {
    headers: { 'X-API-Key': api.systemKey },
  });
  if (res.status !== 200) throw new Error(`jobs: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobs: JobView[] }).jobs;
}

/** Polls the job until it leaves pending/running. */
export async function settled(api: DataApi, id: string, timeoutMs = 20_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await jobsOf(api, '?size=500')).find((candidate) => candidate.id === id);
    if (job && job.status !== 'pending' && job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} not settled: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `POST /scripts/{tenant}/{plural}/{id}/{script}` with the system key unless `key` is given. */
export function runScript(api: DataApi, plural: string, id: string, script: string, key?: string) {
  return fetch(`${api.server.baseUrl}/scripts/${api.tenant}/${plural}/${id}/${script}`, {
    method: 'POST',
    headers: { 'X-API-Key': key ?? api.systemKey },
  });
}

/** Runs a MANUAL script that must be queued (202, queued); resolves the job once it settled. */
export async function runScriptToEnd(
  api: DataApi,
  plural: string,
  id: string,
  script: string,
): Promise<JobView> {
  const res = await runScript(api, plural, id, script);
  const body = (await res.json()) as { queued?: boolean; job?: { id: string } };
  if (res.status !== 202 || !body.job)
    throw new Error(`script ${script}: ${res.status} ${JSON.stringify(body)}`);
  return settled(api, body.job.id);
}

/** Creates an object of a system class under /system (never reachable under /data); its id. */
export async function createSystemObject(api: DataApi, plural: string, body: Json): Promise<string> {
  const res = await fetch(`${api.server.baseUrl}/system/${api.tenant}/${plural}`, {
    method: 'POST',
    headers: { 'X-API-Key': api.systemKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /system/.../${plural}: ${res.status} ${await res.text()}`);
  return (res.headers.get('location') ?? '').slice(-36);
}

/** The tenant's usage records (`GET /system/{t}/serviceCallLogs`), newest first. */
export async function usageRecords(api: DataApi, query = ''): Promise<Json[]> {
  const res = await fetch(
    `${api.server.baseUrl}/system/${api.tenant}/serviceCallLogs?sort=timestamp,desc&size=200${query}`,
    { headers: { 'X-API-Key': api.systemKey } },
  );
  if (res.status !== 200) throw new Error(`serviceCallLogs: ${res.status} ${await res.text()}`);
  const page = (await res.json()) as { _embedded: Record<string, Json[]> };
  return Object.values(page._embedded)[0] ?? [];
}
