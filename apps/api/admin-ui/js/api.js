/**
 * The page's only way to the server: the public REST API of one tenant, with the API key the user
 * typed. The key and tenant id live in this tab's sessionStorage (gone when the tab closes) and travel
 * in the `X-API-Key` header only, never in a URL.
 */

const SESSION_KEY = 'odp.admin.session';

/** `{tenant, key}` of the signed-in tab, or null. */
export function currentSession() {
  try {
    const session = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return session && typeof session.tenant === 'string' && typeof session.key === 'string' ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(tenant, key) {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({ tenant, key }));
}

export function clearSession() {
  sessionStorage.removeItem(SESSION_KEY);
}

/** An error answer of the API: `status` and its problem document (`detail`, `errors: [{field, message}]`). */
/** Paths this tab wrote to lately, with when: its own change events need no redraw. */
const recentWrites = new Map();
const RECENT_WRITE_MS = 3000;

/** Whether this tab sent a write to a path naming `id` in the last few seconds. */
export function wroteLately(id) {
  const since = Date.now() - RECENT_WRITE_MS;
  for (const [path, at] of recentWrites) {
    if (at < since) recentWrites.delete(path);
    else if (path.includes(`/${id}`)) return true;
  }
  return false;
}

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The path of a tenant route: `tenantPath('data', 'companies')` is `/data/<tenant>/companies`. */
export function tenantPath(branch, ...segments) {
  const session = currentSession();
  return ['', branch, session?.tenant ?? '', ...segments].map(encodeURIComponent).join('/');
}

/**
 * One API call. `path` is a server path (as the API's own links give them). Resolves
 * `{status, body, location}` (body null when empty); rejects with an ApiError for a 4xx or 5xx. A 401
 * ends the session: the key is no longer valid.
 */
export async function call(method, path, { body, session = currentSession(), prefer } = {}) {
  const headers = { Accept: 'application/json' };
  if (session) headers['X-API-Key'] = session.key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (prefer) headers.Prefer = prefer;
  if (method !== 'GET') recentWrites.set(path, Date.now());
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const location = response.headers.get('Location');
  // A create's answer names the object it made: its change event is this tab's own write too.
  if (method !== 'GET' && location) recentWrites.set(location, Date.now());
  const text = await response.text();
  let parsed = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text };
    }
  }
  if (!response.ok) {
    if (response.status === 401) clearSession();
    throw new ApiError(response.status, parsed ?? { detail: response.statusText });
  }
  return { status: response.status, body: parsed, location };
}

export async function get(path) {
  return (await call('GET', path)).body;
}

/**
 * Saves the answer of an authenticated GET as a file (an export): the key goes in the header, so
 * the bytes are fetched here and handed to the browser as a blob, never through a URL with a key.
 */
export async function download(path, fileName) {
  const session = currentSession();
  const response = await fetch(path, { headers: { 'X-API-Key': session?.key ?? '' }, cache: 'no-store' });
  if (!response.ok) {
    const text = await response.text();
    let problem = { detail: text };
    try {
      problem = JSON.parse(text);
    } catch {
      // not a problem document: its text is the detail
    }
    throw new ApiError(response.status, problem);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
