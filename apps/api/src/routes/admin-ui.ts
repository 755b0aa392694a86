/**
 * The admin web page (docs/admin-ui.md): static HTML, CSS and ES modules from `apps/api/admin-ui/`,
 * served under `/admin-ui/` without a credential (the files hold no data; the page calls the public
 * REST API with the API key the user types, kept in the tab's sessionStorage, never in a URL).
 *
 * - `GET /` and `GET /admin-ui` redirect to `/admin-ui/`; `GET /admin-ui/` is the page; other files
 *   by name.
 * - `GET /admin-ui/vendor/swagger-ui/{swagger-ui-bundle.js,swagger-ui.css}`: the API explorer's
 *   viewer, the built files of the `swagger-ui-dist` package as installed (no copy in the
 *   repository, no other origin); only these two files.
 * - Content-Security-Policy: scripts, styles and connections from this origin only, no inline
 *   script or style, no framing; `Referrer-Policy: no-referrer`; `Cache-Control: no-cache` so a new
 *   release is picked up on the next load (revalidated by ETag).
 */
import express from 'express';
import type { RequestHandler, Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '@odp/core';
import type { AppDeps } from '../app.js';
import { routeModule } from './router.js';

/** Where the page's files are: a folder of the api app, shipped with it, no build step. */
export const ADMIN_UI_DIR = fileURLToPath(new URL('../../admin-ui/', import.meta.url));

/** The folder of the installed `swagger-ui-dist` package (the API explorer's viewer). */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The viewer's files the page loads: its standalone bundle and its stylesheet (both work under the CSP). */
const SWAGGER_UI_FILES: ReadonlySet<string> = new Set(['swagger-ui-bundle.js', 'swagger-ui.css']);

/** The page's address, relative to the base URL (printed by `pnpm start`, linked in the README). */
export const ADMIN_UI_PATH = '/admin-ui/';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const pageHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-cache');
  next();
};

export function adminUiRoutes(_deps: AppDeps): Router {
  const router = routeModule();
  // The platform's root is where a person opening the base address in a browser wants to be.
  router.get('/', (_req, res) => res.redirect(302, ADMIN_UI_PATH));
  // Without the slash the page's relative addresses (app.css, js/main.js) would resolve under `/`.
  router.get('/admin-ui', (req, res, next) => {
    if (req.path === '/admin-ui') res.redirect(301, ADMIN_UI_PATH);
    else next();
  });
  router.get(`${ADMIN_UI_PATH}vendor/swagger-ui/:file`, pageHeaders, (req, res, next) => {
    const file = String(req.params['file']);
    if (!SWAGGER_UI_FILES.has(file)) throw new NotFoundError('The API explorer has no such file.');
    res.sendFile(file, { root: SWAGGER_UI_DIR, dotfiles: 'deny' }, (error) => {
      if (error) next(error);
    });
  });
  router.use(
    ADMIN_UI_PATH,
    pageHeaders,
    express.static(ADMIN_UI_DIR, {
      index: 'index.html',
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
    }),
  );
  return router;
}
