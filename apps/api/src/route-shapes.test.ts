import type { Request, RequestHandler, Response, Router } from 'express';
import { routeModules } from './route-shapes.js';
import { routeModule } from './routes/router.js';

/** What a request did: answered by one of the module's routes, or passed on (`next`). */
type Outcome = { answered: string } | 'passed';

function run(handler: RequestHandler, method: string, url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = { method, url, originalUrl: url, params: {} } as unknown as Request;
    Object.defineProperty(req, 'path', { get: () => new URL(req.url, 'http://x').pathname });
    const res = { locals: { resolve } } as unknown as Response;
    handler(req, res, () => resolve('passed'));
  });
}

/** A module whose routes answer with their own path, and a count of the requests it saw at all. */
function module(): { router: Router; seen: string[]; counted: Router } {
  const router = routeModule();
  const answer =
    (route: string): RequestHandler =>
    (_req, res) =>
      (res.locals['resolve'] as (outcome: Outcome) => void)({ answered: route });
  for (const route of [
    '/data/:tenant/:typeName',
    '/data/:tenant/:typeName/capabilities',
    '/data/:tenant/:typeName/:id',
    '/data/:tenant/download/:objectId/:fileId',
  ]) {
    router.get(route, answer(route));
  }
  router.use('/admin-ui/', answer('/admin-ui/ (mounted)'));
  return { router, ...counting(router) };
}

/** `router` noting the url of every request it is handed, with its layers to read shapes from. */
function counting(router: Router): { seen: string[]; counted: Router } {
  const seen: string[] = [];
  const counted = Object.assign(
    (req: Request, res: Response, next: () => void) => {
      seen.push(req.url);
      router(req, res, next);
    },
    { stack: router.stack },
  ) as unknown as Router;
  return { seen, counted };
}

describe('routeModules', () => {
  it.each([
    ['/data/t/companies', '/data/:tenant/:typeName'],
    ['/data/t/companies/', '/data/:tenant/:typeName'],
    ['/data/t/companies/c1', '/data/:tenant/:typeName/:id'],
    ['/data/t/companies/capabilities', '/data/:tenant/:typeName/capabilities'],
    ['/data/t/download/o1/f1', '/data/:tenant/download/:objectId/:fileId'],
    ['/admin-ui/', '/admin-ui/ (mounted)'],
    ['/admin-ui/app/index.js', '/admin-ui/ (mounted)'],
    ['/data/t/companies?sort=legalName', '/data/:tenant/:typeName'],
  ])('hands %s to the module, whose route %s answers it', async (url, route) => {
    const { counted, seen } = module();
    await expect(run(routeModules([counted]), 'GET', url)).resolves.toEqual({
      answered: route,
    });
    expect(seen).toEqual([url]);
  });

  it.each([
    '/data/t',
    '/data/t/companies/c1/invoices/x',
    '/DATA/t/companies',
    '/search/t/companies',
    '/data//companies',
    '/admin',
    '/',
  ])('passes %s by without the module seeing it, as its router would not answer it', async (url) => {
    const { counted, seen, router } = module();
    await expect(run(routeModules([counted]), 'GET', url)).resolves.toBe('passed');
    expect(seen).toEqual([]);
    // The router itself agrees: none of its routes answers the request.
    await expect(run(router, 'GET', url)).resolves.toBe('passed');
  });

  it('hands every request to a module whose paths use other syntax', async () => {
    for (const path of ['/files/*path', '/data/:tenant{/:typeName}']) {
      const router = routeModule();
      router.get(path, (_req, res) => res.end());
      const { seen, counted } = counting(router);
      await run(routeModules([counted]), 'GET', '/anything/at/all');
      expect(seen).toEqual(['/anything/at/all']);
    }
  });

  it('hands a request the first fitting module passes on to the next fitting one, skipping the others', async () => {
    const first = module();
    const other = routeModule();
    other.get('/search/:tenant', (_req, res) => res.end());
    const second = module();
    const unfitting = counting(other);
    const handler = routeModules([first.counted, unfitting.counted, second.counted]);
    // The first module has no POST route: its router passes the request on.
    await expect(run(handler, 'POST', '/data/t/companies')).resolves.toBe('passed');
    expect(first.seen).toEqual(['/data/t/companies']);
    expect(unfitting.seen).toEqual([]);
    expect(second.seen).toEqual(['/data/t/companies']);
  });

  it('hands an error a module passes on to the app, not to the next module', async () => {
    const failing = routeModule();
    failing.get('/data/:tenant/:typeName', (_req, _res, next) => next(new Error('refused')));
    const after = module();
    const error = await new Promise<unknown>((resolve) => {
      const req = { method: 'GET', url: '/data/t/companies', params: {} } as unknown as Request;
      Object.defineProperty(req, 'path', { get: () => '/data/t/companies' });
      routeModules([failing, after.counted])(req, {} as Response, resolve);
    });
    expect(error).toEqual(new Error('refused'));
    expect(after.seen).toEqual([]);
  });

  it('hands every request to a module with a middleware mounted at the root', async () => {
    const router = routeModule();
    router.get('/health', (_req, res) => res.end());
    router.use((_req, _res, next) => next());
    const { seen, counted } = counting(router);
    await run(routeModules([counted]), 'GET', '/anything/at/all');
    expect(seen).toEqual(['/anything/at/all']);
  });
});
