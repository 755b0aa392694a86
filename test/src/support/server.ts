/**
 * Starts the real platform (`apps/api/src/embedded.ts`, what `pnpm start` runs) in a child process
 * for black-box suites, on a free 127.0.0.1 port with a fresh temporary ODP_DATA_DIR. With
 * `ODP_TEST_BUILT=1` the child runs the built api (`apps/api/dist`, after `pnpm build`) instead.
 *
 *   const server = await startServer({ env: idp.env });
 *   const res = await fetch(`${server.baseUrl}/tenants/${server.tenantId}`, { headers: { 'X-API-Key': server.systemKey } });
 *   await server.stop();   // always, in afterAll
 *
 * A second api instance of the same deployment (scale-out suites): `startServer({ instanceOf: server })`
 * runs on its own port over the first one's data directory with the first one's extra environment;
 * stop it before the first, which removes the directory.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { freePort } from '@odp/testkit';
import { runCli } from '@odp/admin-cli';
import { connectMongo, databaseOf, PLATFORM_DATABASE } from '@odp/store-mongodb';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A port nothing listens on (`@odp/testkit`), re-exported for the suites. */
export { freePort };

export const REPO_ROOT = path.resolve(__dirname, '../../..');
const READY_PREFIX = 'ODP_READY ';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

export interface ServerOptions {
  /** Extra environment (for example an identity provider's ODP_AUTH_* variables). */
  readonly env?: Readonly<Record<string, string>>;
  /** Reuse a data directory (a restart); it is then not removed by stop(). */
  readonly dataDir?: string;
  /**
   * Start another instance of this server's deployment: its data directory (not removed by this
   * instance's stop()) and its extra environment, under `env` given here.
   */
  readonly instanceOf?: TestServer;
  /**
   * `embedded` (default): `pnpm start`, api and worker in one process, with the demo tenant.
   * `api`: the api alone (`pnpm --filter @odp/api start`), for scale-out suites that run workers apart.
   */
  readonly entry?: 'embedded' | 'api';
}

/**
 * The node arguments that start the entry `name` of an app (`apps/api`, `apps/worker`): its
 * TypeScript sources through tsx, or with `ODP_TEST_BUILT=1` the built JavaScript of `pnpm build`
 * (`<app>/dist/<name>.js`, plain node, the packages resolved to their `dist`), as production runs.
 */
export function entryArguments(app: 'apps/api' | 'apps/worker', name: 'main' | 'embedded'): string[] {
  if (process.env['ODP_TEST_BUILT'] === '1') return [path.join(REPO_ROOT, `${app}/dist/${name}.js`)];
  return ['--import', 'tsx', '--conditions=@odp/source', path.join(REPO_ROOT, `${app}/src/${name}.ts`)];
}

export interface OdpResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface TestServer {
  readonly baseUrl: string;
  readonly dataDir: string;
  /** The demo tenant's id (null when a reused data directory no longer has one). */
  readonly tenantId: string | null;
  /** The demo tenant's system key; only on the first start of a data directory. */
  readonly systemKey: string | null;
  /** The environment the server runs with; `odp` uses the same. */
  readonly env: Readonly<Record<string, string>>;
  /** The extra environment it was started with (`ServerOptions.env`), shared by its other instances. */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** The process id of the server (with several api processes, of their primary). */
  readonly pid: number;
  /**
   * Runs `odp <args> --json` against the same configuration; resolves the parsed object, rejects on
   * failure. Runs the command's code in-process (fast); `runOdpProcess` runs the real executable.
   */
  odp(args: readonly string[]): Promise<Record<string, unknown>>;
  /** Runs `odp <args>` as given (in-process) and reports exit code and output, whatever happens. */
  odpRaw(args: readonly string[]): Promise<OdpResult>;
  /**
   * SIGTERM, wait for exit (SIGKILL after 5 s), remove the temporary data directory. Idempotent.
   * Resolves the exit code (0 for a graceful shutdown; null when it had to be killed).
   */
  stop(): Promise<number | null>;
  /**
   * SIGKILL at once (no shutdown, no flush, no close: a crash), resolving when the process is gone.
   * The data directory is kept for a restart with `startServer({dataDir})`.
   */
  kill(): Promise<void>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Runs the `odp` executable as a user types it (`bin/odp`, which compiles the command first when
 * its sources changed) in a child process.
 */
export function runOdpProcess(
  env: Readonly<Record<string, string>>,
  args: readonly string[],
): Promise<OdpResult> {
  return new Promise((resolve) => {
    execFile(
      path.join(REPO_ROOT, 'bin/odp'),
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: START_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs the `odp` command's code in this process, exactly as the executable would with this environment. */
export async function runOdp(
  env: Readonly<Record<string, string>>,
  args: readonly string[],
): Promise<OdpResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    cwd: REPO_ROOT,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

/** How often a start is retried when another process took the free port first. */
const PORT_ATTEMPTS = 3;

/** The MongoDB address the server runs on with `env` over this process's environment; null on SQLite. */
function mongoStoreUrl(env: Readonly<Record<string, string>> | undefined): string | null {
  const store = env?.['ODP_STORE'] ?? process.env['ODP_STORE'];
  const url = env?.['ODP_MONGODB_URL'] ?? process.env['ODP_MONGODB_URL'];
  return store === 'mongodb' && url !== undefined ? url : null;
}

/**
 * With `ODP_STORE=mongodb` (given here or in the environment, as the scale-out pass of .ci/run sets
 * it) the platform registry lives in the database the MongoDB address names: each data directory
 * gets its own, so servers started side by side do not share tenants, and a server started again on
 * the same data directory finds its tenants again.
 */
export function ownRegistryDatabase(
  dataDir: string,
  env: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const url = mongoStoreUrl(env);
  if (url === null || databaseOf(url) !== null) return {};
  const database = `odp_test_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
  const [address = '', query] = url.split('?', 2);
  return {
    ODP_MONGODB_URL: `${address.replace(/\/$/, '')}/${database}${query === undefined ? '' : `?${query}`}`,
  };
}

/**
 * Everything the server's platform registry holds, as text (to check what is never stored): the
 * bytes of the embedded registry's files, or every document of the MongoDB registry database.
 */
export async function storedRegistry(server: Pick<TestServer, 'dataDir' | 'env'>): Promise<string> {
  const url = mongoStoreUrl(server.env);
  if (url === null) {
    return readdirSync(server.dataDir)
      .filter((name) => name.startsWith('platform.sqlite'))
      .map((name) => readFileSync(path.join(server.dataDir, name)).toString('latin1'))
      .join('');
  }
  const client = await connectMongo(url);
  try {
    const db = client.db(databaseOf(url) ?? PLATFORM_DATABASE);
    const collections = await db.listCollections().toArray();
    const documents = await Promise.all(collections.map(({ name }) => db.collection(name).find().toArray()));
    return JSON.stringify(documents);
  } finally {
    await client.close();
  }
}

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !String(error).includes('is already in use')) throw error;
    }
  }
}

async function startOnce(options: ServerOptions): Promise<TestServer> {
  const shared = options.instanceOf;
  const reused = options.dataDir ?? shared?.dataDir;
  const ownDataDir = reused === undefined;
  const dataDir = reused ?? mkdtempSync(path.join(os.tmpdir(), 'odp-test-'));
  const extraEnv = {
    ...shared?.extraEnv,
    ...options.env,
    ...(shared === undefined ? ownRegistryDatabase(dataDir, options.env) : {}),
  };
  const port = await freePort();
  const env: Record<string, string> = {
    PORT: String(port),
    ODP_BASE_URL: `http://127.0.0.1:${port}`,
    ODP_DATA_DIR: dataDir,
    // One process unless a suite asks for more (test/src/api-processes.test.ts): suites stay light
    // on a shared machine, and a suite that kills the server kills the whole api.
    ODP_API_PROCESSES: '1',
    ...extraEnv,
  };
  const child = spawn(
    process.execPath,
    entryArguments('apps/api', options.entry === 'api' ? 'main' : 'embedded'),
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  let stopping: Promise<number | null> | undefined;
  const stop = async () => {
    if (stopping === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      stopping = exited(child).finally(() => clearTimeout(timer));
    }
    const code = await stopping;
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    return code;
  };

  let ready: { baseUrl: string; tenantId: string | null; systemKey: string | null };
  try {
    ready = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server not ready in ${START_TIMEOUT_MS} ms:\n${output}`)),
        START_TIMEOUT_MS,
      );
      const check = () => {
        const line = output.split('\n').find((l) => l.startsWith(READY_PREFIX) && output.includes(`${l}\n`));
        if (line === undefined) return;
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(READY_PREFIX.length)));
      };
      child.stdout?.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before it was ready:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }

  const odpRaw = (args: readonly string[]) => runOdp(env, args);
  return {
    baseUrl: ready.baseUrl,
    dataDir,
    tenantId: ready.tenantId,
    systemKey: ready.systemKey,
    env,
    extraEnv,
    output: () => output,
    pid: child.pid ?? 0,
    odpRaw,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async odp(args) {
      const result = await odpRaw([...args, '--json']);
      if (result.code !== 0)
        throw new Error(`odp ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    },
    stop,
  };
}
