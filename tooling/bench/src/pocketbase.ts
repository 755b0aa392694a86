/**
 * PocketBase, the peer `pnpm bench --peers` measures beside the platform: its Go module built once
 * into a cache directory (never into the repository), one server per size on a free 127.0.0.1 port
 * over a temporary data directory, a superuser made with its own CLI, and its Web API.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startProcess } from './processes.js';
import type { Child } from './processes.js';

/** The release measured: a version whose module builds with the Go of the machines this runs on. */
export const POCKETBASE_VERSION = 'v0.36.8';
const MODULE = 'github.com/pocketbase/pocketbase/examples/base';
const SUPERUSER = { email: 'bench@example.test', password: 'bench-superuser-password' };

/** Where the built binary is kept between runs: `$ODP_BENCH_CACHE` or `~/.cache/odp-bench`. */
function cacheDir(): string {
  return process.env['ODP_BENCH_CACHE'] ?? path.join(os.homedir(), '.cache', 'odp-bench');
}

/** The Go command: `$GO`, else `go` on the PATH, else the standard install location. */
function goCommand(): string {
  if (process.env['GO']) return process.env['GO'];
  const onPath = spawnSync('go', ['version'], { encoding: 'utf8' });
  return onPath.status === 0 ? 'go' : '/usr/local/go/bin/go';
}

/**
 * The PocketBase binary of {@link POCKETBASE_VERSION}, built with `go install` on first use
 * (`GOTOOLCHAIN=local`: the Go installed here, never a downloaded toolchain). Throws with Go's
 * output when the build fails.
 */
export function pocketbaseBinary(log: (line: string) => void): string {
  const bin = path.join(cacheDir(), `pocketbase-${POCKETBASE_VERSION}`);
  const binary = path.join(bin, 'base');
  if (existsSync(binary)) return binary;
  mkdirSync(bin, { recursive: true });
  log(`Building PocketBase ${POCKETBASE_VERSION} into ${bin} (go install, once)`);
  const built = spawnSync(goCommand(), ['install', `${MODULE}@${POCKETBASE_VERSION}`], {
    env: { ...process.env, GOBIN: bin, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' },
    encoding: 'utf8',
  });
  if (built.error !== undefined || built.status !== 0 || !existsSync(binary)) {
    throw new Error(
      `go install ${MODULE}@${POCKETBASE_VERSION} failed: ${built.error?.message ?? built.stderr}`,
    );
  }
  return binary;
}

/** A running PocketBase server, its superuser's token and a JSON client of its Web API. */
export interface PocketBase {
  readonly child: Child;
  readonly superuserToken: string;
  /** One Web API call as the superuser (or with `token`); throws on a status outside 2xx. */
  call(method: string, apiPath: string, body?: unknown, token?: string): Promise<unknown>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts PocketBase over a new temporary directory, production mode (`--dev=false`). Its data
 * directory is `pb_data` inside it, so the directories PocketBase looks for beside its data
 * (`pb_migrations`, `pb_hooks`, `pb_public`) are in it too and empty; `--automigrate=false`: the
 * collections made through the API write no migration files.
 */
export async function startPocketBase(binary: string): Promise<PocketBase> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-pocketbase-'));
  const flags = ['--dir', path.join(root, 'pb_data'), '--dev=false', '--automigrate=false'];
  try {
    const upsert = spawnSync(binary, ['superuser', 'upsert', SUPERUSER.email, SUPERUSER.password, ...flags], {
      encoding: 'utf8',
    });
    if (upsert.status !== 0) throw new Error(`pocketbase superuser upsert failed: ${upsert.stderr}`);
    const port = await freePort();
    const child = await startProcess({
      name: `pocketbase ${POCKETBASE_VERSION}`,
      command: binary,
      args: ['serve', '--http', `127.0.0.1:${port}`, ...flags],
      port,
      readyLine: (line) => (line.includes('Server started at') ? line : undefined),
    });
    const call = async (
      method: string,
      apiPath: string,
      body?: unknown,
      token?: string,
    ): Promise<unknown> => {
      const res = await fetch(`${child.baseUrl}${apiPath}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token === undefined ? {} : { authorization: token }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`PocketBase ${method} ${apiPath}: ${res.status} ${text.slice(0, 2000)}`);
      return text === '' ? null : (JSON.parse(text) as unknown);
    };
    const auth = (await call('POST', '/api/collections/_superusers/auth-with-password', {
      identity: SUPERUSER.email,
      password: SUPERUSER.password,
    })) as { token: string };
    return {
      child,
      superuserToken: auth.token,
      call: (method, apiPath, body, token) => call(method, apiPath, body, token ?? auth.token),
      stop: async () => {
        await child.stop();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
