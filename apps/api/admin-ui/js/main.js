/**
 * The admin page's router: the location hash names the view (`#/classes`, `#/list/<path>?<query>`,
 * `#/object/<class>/<id>`, `#/search?q=`, `#/new/<class>`, `#/edit/<class>/<id>`, `#/audit/<class>/<id>`, `#/model`, `#/usage`, `#/jobs`, `#/schema[/<class>]`, `#/api`,
 * `#/sign-in`), so views are bookmarkable and the browser's back button works. A list view's query is
 * the API's own list query (filters, `sort`, `page`, `size`), so the API's paging links map 1:1.
 */
import { ApiError, clearSession, currentSession } from './api.js';
import { alertBox, show } from './dom.js';
import { connectLive, disconnectLive, resetListeners } from './live.js';
import { signInView } from './views/sign-in.js';
import { classesView } from './views/classes.js';
import { listView } from './views/list.js';
import { searchView, wireGlobalSearch } from './views/search.js';
import { accessView } from './views/access.js';
import { objectView } from './views/object.js';
import { formView } from './views/form.js';
import { modelView } from './views/admin.js';
import { auditView } from './views/audit.js';
import { usageView } from './views/usage.js';
import { jobsView } from './views/jobs.js';
import { schemaView } from './views/schema.js';
import { explorerView } from './views/explorer.js';

/** The parsed hash: `{path: ['list', 'companies'], query: URLSearchParams}`. */
function route() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?');
  return {
    path: path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent),
    query: new URLSearchParams(query),
  };
}

const VIEWS = {
  classes: () => classesView(),
  search: (_segments, query) => searchView(query),
  access: () => accessView(),
  list: (segments, query) => listView(segments, query),
  object: ([typeName, id]) => objectView(typeName, id),
  new: ([typeName]) => formView(typeName, null),
  edit: ([typeName, id]) => formView(typeName, id),
  audit: ([typeName, id]) => auditView(typeName, id),
  model: (_segments, _query, active) => modelView(active),
  usage: (_segments, query) => usageView(query),
  jobs: (_segments, query) => jobsView(query),
  schema: (segments) => schemaView(segments),
  api: (_segments, query) => explorerView(query),
};

/** Counts renders; a view's `active()` is false once another view replaced it (its polling stops). */
let generation = 0;

async function render() {
  const token = ++generation;
  const active = () => token === generation;
  // `data-rendered` names the hash whose view is complete (tests and assistive tools wait for it).
  delete document.body.dataset.rendered;
  resetListeners();
  const session = currentSession();
  const nav = document.getElementById('nav');
  nav.hidden = session === null;
  document.getElementById('signed-in-tenant').textContent = session ? `tenant ${session.tenant}` : '';
  const { path, query } = route();
  const [name = 'classes', ...segments] = path;
  if (session === null || name === 'sign-in') {
    signInView(query);
    document.body.dataset.rendered = location.hash;
    return;
  }
  connectLive();
  const view = VIEWS[name] ?? VIEWS.classes;
  try {
    await view(segments, query, active);
  } catch (error) {
    if (!active()) return;
    if (error instanceof ApiError && error.status === 401) {
      location.hash = '#/sign-in';
      return;
    }
    show(alertBox(error instanceof ApiError ? `${error.status}: ${error.message}` : String(error)));
  }
  if (active()) document.body.dataset.rendered = location.hash;
}

document.getElementById('sign-out').addEventListener('click', () => {
  clearSession();
  disconnectLive();
  location.hash = '#/sign-in';
  render();
});
wireGlobalSearch();
window.addEventListener('hashchange', render);
render();
