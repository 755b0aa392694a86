/**
 * The API explorer (`#/api`): the tenant's OpenAPI document (`GET /metadata/{tenant}/openapi.json`)
 * in Swagger UI, whose built files the api serves under `vendor/swagger-ui/` (the standalone
 * bundle and its stylesheet: no inline script or style, so the page's CSP stays as it is). Every
 * "Try it out" request goes to this server and carries the signed-in key in `X-API-Key`, added by a
 * request interceptor: the key is never typed again, never shown and never put in a URL (the
 * request's curl line, which would print it, is not shown: explorer.css). What the viewer draws
 * without a name or keyboard access gets them here (`accessible`), so the view passes axe-core.
 */
import { currentSession, get, tenantPath } from '../api.js';
import { h, show } from '../dom.js';

const VENDOR = 'vendor/swagger-ui/';
let loading = null;

/** Loads the viewer's stylesheet and bundle once per page (a script element from this origin). */
function loadSwaggerUi() {
  if (loading === null) {
    loading = new Promise((resolve, reject) => {
      document.head.append(
        h('link', { rel: 'stylesheet', href: `${VENDOR}swagger-ui.css` }),
        h('link', { rel: 'stylesheet', href: 'explorer.css' }),
      );
      const script = h('script', { src: `${VENDOR}swagger-ui-bundle.js` });
      script.addEventListener('load', () => resolve(window.SwaggerUIBundle));
      script.addEventListener('error', () => {
        loading = null;
        reject(new Error('The API explorer could not be loaded.'));
      });
      document.head.append(script);
    });
  }
  return loading;
}

/**
 * What a path is about: the class for data paths (`/data/{tenant}/companies/...` is "companies"),
 * else its branch ("metadata"); the explorer shows one part at a time.
 */
function partOf(path) {
  const [branch, , subject] = path.split('/').slice(1);
  return branch === 'data' && subject && !subject.startsWith('{') ? subject : branch;
}

/** The parts of the document in its order; the first class is the one shown first. */
function partsOf(spec) {
  return [...new Set(Object.keys(spec.paths ?? {}).map(partOf))];
}

/**
 * The document narrowed to one part's paths (every schema kept, so references resolve). A model's
 * API has hundreds of operations: the viewer draws one class's in a moment, all of them slowly.
 */
function partOfDocument(spec, part) {
  const paths = Object.fromEntries(
    Object.entries(spec.paths ?? {}).filter(([path]) => partOf(path) === part),
  );
  return { ...spec, paths, servers: [{ url: baseAddress(), description: 'This server' }] };
}

/**
 * Names the viewer's unnamed selects (the server, a parameter's choices) after what they choose,
 * and lets the keyboard reach its scrolling code blocks; run again whenever the viewer redraws.
 */
function accessible(container) {
  const patch = () => {
    for (const select of container.querySelectorAll('select:not([aria-label])')) {
      const parameter = select.closest('tr[data-param-name]')?.getAttribute('data-param-name');
      select.setAttribute(
        'aria-label',
        parameter ? `Value of ${parameter}` : select.id === 'servers' ? 'Server' : 'Choice',
      );
    }
    for (const block of container.querySelectorAll('.microlight:not([tabindex])'))
      block.setAttribute('tabindex', '0');
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      patch();
    });
  }).observe(container, { childList: true, subtree: true });
  patch();
}

/** The platform's base address: where this page is, without `/admin-ui/...`. */
function baseAddress() {
  return location.href.replace(/\/admin-ui\/.*$/, '');
}

/** `#/api?part=<class or branch>`: one part of the tenant's API in the viewer. */
export async function explorerView(query) {
  const [SwaggerUIBundle, spec] = await Promise.all([
    loadSwaggerUi(),
    get(tenantPath('metadata', 'openapi.json')),
  ]);
  const parts = partsOf(spec);
  const firstClass = Object.keys(spec.paths ?? {}).find((path) => /^\/data\/\{tenant\}\/[^/{]+$/.test(path));
  const wanted = query.get('part');
  const part = parts.includes(wanted) ? wanted : firstClass ? partOf(firstClass) : parts[0];
  const choice = h(
    'select',
    { id: 'explorer-part', 'aria-label': 'Part of the API' },
    parts.map((name) => h('option', { value: name, selected: name === part }, name)),
  );
  choice.addEventListener('change', () => {
    location.hash = `#/api?part=${encodeURIComponent(choice.value)}`;
  });
  const container = h('div', { id: 'explorer' });
  show(
    h('h1', {}, 'API explorer'),
    h(
      'p',
      { class: 'muted' },
      "This tenant's REST API as its OpenAPI document describes it, one class (or branch) at a time. Try it out sends the request with the key you signed in with.",
    ),
    h('label', { class: 'toolbar' }, 'Show ', choice),
    container,
  );
  const session = currentSession();
  accessible(container);
  SwaggerUIBundle({
    spec: partOfDocument(spec, part),
    domNode: container,
    deepLinking: false,
    defaultModelsExpandDepth: -1,
    docExpansion: 'list',
    requestInterceptor: (request) => {
      request.headers['X-API-Key'] = session?.key ?? '';
      return request;
    },
  });
  // The view is complete once the viewer drew the operations (or after 10 s, whatever it drew).
  await new Promise((resolve) => {
    const started = Date.now();
    const check = () =>
      container.querySelector('.opblock') || Date.now() - started > 10_000
        ? resolve()
        : setTimeout(check, 50);
    check();
  });
}
