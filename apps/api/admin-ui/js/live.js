/**
 * Live updates: one `EventSource` on the tenant's change stream (docs/events.md) while signed in,
 * opened with a stream token (`GET /data/{tenant}/eventStream/token`: an `EventSource` cannot send
 * the key header, and the key never goes into a URL; the token opens only this stream, as this
 * key's account, for 15 minutes). The open view listens through `onChange`; every render starts
 * with no listener, so a view that was replaced hears nothing. When the stream closes for good (an
 * expired token), a new token is asked for and the stream resumes after the last event received.
 */
import { currentSession, get, tenantPath } from './api.js';

const REOPEN_MS = 3000;
const EVENT_TYPES = ['create', 'update', 'delete', 'merge'];

let source = null;
let sourceKey = null;
/** Whether a token is being fetched for `sourceKey` (a render meanwhile opens no second stream). */
let connecting = false;
let lastEventId = null;
let reopenTimer = null;
let listeners = [];

function indicator(open) {
  const element = document.getElementById('live');
  if (element) element.hidden = !open;
}

function dispatch(message) {
  lastEventId = message.lastEventId || lastEventId;
  let event;
  try {
    event = JSON.parse(message.data);
  } catch {
    return;
  }
  for (const listener of listeners) listener(event);
}

async function open(session) {
  const { href } = await get(tenantPath('data', 'eventStream', 'token'));
  if (currentSession()?.key !== session.key || sourceKey !== session.key) return;
  const url = new URL(href, location.origin);
  if (lastEventId !== null) url.searchParams.set('lastEventId', lastEventId);
  const stream = new EventSource(url.pathname + url.search);
  source = stream;
  stream.addEventListener('open', () => indicator(true));
  for (const type of EVENT_TYPES) stream.addEventListener(type, dispatch);
  stream.addEventListener('error', () => {
    if (stream.readyState !== EventSource.CLOSED || source !== stream) return;
    indicator(false);
    source = null;
    clearTimeout(reopenTimer);
    reopenTimer = setTimeout(() => connectLive(), REOPEN_MS);
  });
}

/** Opens the stream for the signed-in key (once; again after a sign-in with another key). */
export function connectLive() {
  const session = currentSession();
  if (session === null) return disconnectLive();
  if (sourceKey === session.key && (source !== null || connecting)) return;
  // Another key starts afresh; the same key resumes after the last event it received.
  if (sourceKey !== session.key) disconnectLive();
  clearTimeout(reopenTimer);
  sourceKey = session.key;
  connecting = true;
  open(session)
    .catch(() => {
      reopenTimer = setTimeout(() => connectLive(), REOPEN_MS);
    })
    .finally(() => {
      connecting = false;
    });
}

/** Closes the stream (sign-out). */
export function disconnectLive() {
  clearTimeout(reopenTimer);
  source?.close();
  source = null;
  sourceKey = null;
  lastEventId = null;
  indicator(false);
}

/** Forgets the listeners of the previous view (the router calls it before each render). */
export function resetListeners() {
  listeners = [];
}

/** Calls `listener(event)` for each change event while the current view is shown. */
export function onChange(listener) {
  listeners.push(listener);
}

/** The path of an event's object, as the views' API paths spell it (`/data/<tenant>/<class>/<id>`). */
export function eventPath(href) {
  return new URL(href, location.origin).pathname;
}
