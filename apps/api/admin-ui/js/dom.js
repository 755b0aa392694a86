/**
 * Building the page from data without HTML strings: every value reaches the DOM as a text node or an
 * attribute, so nothing a record holds can become markup or script.
 */

/**
 * `h('a', {href: '#/x', class: 'button'}, 'text', child)`: an element with attributes and children.
 * Attributes that are null, undefined or false are left out; `true` sets an empty attribute;
 * functions under `on<event>` names become listeners.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/**
 * A table of `rows` (tr elements) under column `headings`, scrolling inside its box on a narrow
 * screen; the box takes the keyboard focus, so arrow keys scroll it where no link inside could.
 */
export function dataTable(id, headings, rows) {
  return h(
    'div',
    { class: 'table-scroll', tabindex: '0' },
    h(
      'table',
      { id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headings.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** Replaces the main area's content. */
export function show(...children) {
  const main = document.getElementById('main');
  main.replaceChildren();
  append(main, children);
}

/** An alert box with a problem's detail (role=alert, so it is announced). */
export function alertBox(message) {
  return h('div', { class: 'alert', role: 'alert' }, message);
}

/** The alert box of a failed call: its status and the problem's detail ("409 The object is ..."). */
export function errorBox(error) {
  return alertBox(`${error.status ?? ''} ${error.message}`.trim());
}

let pendingNotice = null;

/** A message for the next view to show once (e.g. "Deleted" after a delete moved to the list). */
export function notice(message) {
  pendingNotice = message;
}

/** The pending notice as a box, or null; shown once. */
export function takeNotice() {
  const message = pendingNotice;
  pendingNotice = null;
  return message === null ? null : h('div', { class: 'notice', role: 'status' }, message);
}

/** Goes to a view; renders it again when the hash already names it. */
export function navigate(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/**
 * The page address of an API path: `/data/<tenant>/companies/<id>` is `#/object/companies/<id>`, a
 * list or related list path (with its query) is `#/list/...`. Other paths have no view (null).
 */
export function viewOf(apiPath) {
  const url = new URL(apiPath, location.origin);
  const [branch, , ...rest] = url.pathname.split('/').slice(1).map(decodeURIComponent);
  if (branch !== 'data' || rest.length === 0) return null;
  const path = rest.map(encodeURIComponent).join('/');
  if (rest.length === 2) return `#/object/${path}`;
  return `#/list/${path}${url.search}`;
}
