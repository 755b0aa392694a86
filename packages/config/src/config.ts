import path from 'node:path';
import type { Config } from './config-types.js';
import {
  parseBlobs,
  parseJobs,
  parseRedisUrl,
  parseSearch,
  parseStore,
  parseWarehouse,
} from './engines-config.js';
import { parseLimits } from './limits-config.js';
import { parseOutbound } from './outbound-config.js';
import { resolveSecretKey } from './secret-key.js';
import { parseAuth } from './sign-in-config.js';
import { parseInteger, parseUrl } from './value-parsers.js';
import { environmentReader, refuseUnknownVariables } from './variables.js';
import type { Env } from './variables.js';

/**
 * Reads and validates the environment. Throws ConfigError on the first bad value, and on an `ODP_*`
 * variable that is not one of `CONFIG_VARIABLES` (tooling variables aside).
 *
 * Side effect: when `ODP_SECRET_KEY` is absent, the key is read from `<dataDir>/secret.key`, and on
 * first start generated into that file (mode 0600), creating the data directory.
 */
export function loadConfig(env: Env = process.env): Config {
  refuseUnknownVariables(env);
  const read = environmentReader(env);
  const port = parseInteger('PORT', read('PORT'), 8080, { max: 65535 });
  const baseUrl = parseUrl('ODP_BASE_URL', read('ODP_BASE_URL') ?? `http://localhost:${port}`, [
    'http:',
    'https:',
  ]);
  const dataDir = path.resolve(read('ODP_DATA_DIR') ?? './.odp');
  return {
    port,
    baseUrl,
    dataDir,
    store: parseStore(read),
    search: parseSearch(read),
    blobs: parseBlobs(read),
    redisUrl: parseRedisUrl(read),
    jobs: parseJobs(read),
    warehouse: parseWarehouse(read),
    auth: parseAuth(read),
    secretKey: resolveSecretKey(read('ODP_SECRET_KEY'), dataDir),
    ...parseLimits(read),
    ...parseOutbound(read, baseUrl),
  };
}
