import type { RequestHandler } from 'express';

/**
 * Cross-origin access for browser front-ends. Credentials travel in headers (never cookies), so
 * any origin may call; preflights are answered here without a credential.
 */
export function cors(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Location, Content-Disposition, ETag');
    if (req.method !== 'OPTIONS') {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS');
    res.setHeader(
      'Access-Control-Allow-Headers',
      ['Authorization', 'X-API-Key', 'Content-Type', 'Prefer', 'If-Match', 'If-None-Match'].join(', '),
    );
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}
