/**
 * Modules run in another JavaScript context (a task's process, a thread): which file, and how to
 * load it. Where the platform runs from its TypeScript sources, the module is a `.ts` file loaded
 * through `tsx`, its workspace imports resolved to their sources by the `@odp/source` export
 * condition; once built, the `.js` beside its caller, loaded as it is.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Resolves workspace imports to their TypeScript sources (the packages' `@odp/source` exports). */
const SOURCE_CONDITION = '--conditions=@odp/source';

/**
 * The URL of the task module `name` beside the module at `callerUrl` (its `import.meta.url`), with
 * the caller's own extension: `.ts` while the platform runs from its sources, `.js` once built.
 */
export function taskModule(callerUrl: string, name: string): URL {
  const extension = path.extname(new URL(callerUrl).pathname) || '.js';
  return new URL(`./${name}${extension}`, callerUrl);
}

/**
 * The Node options that load the module file `file` in a new process or thread (`execArgv`):
 * `tsx`'s loader and the `@odp/source` condition for a `.ts` file, none for built JavaScript.
 */
export function sourceLoaderArgs(file: string): string[] {
  return file.endsWith('.ts') ? ['--import', tsxExport(file, '.'), SOURCE_CONDITION] : [];
}

/**
 * Starts the module `entry` in a worker thread. A `.ts` module is imported once `tsx` registered
 * its loader in the thread: a thread does not apply the loader of an `--import` in its `execArgv`
 * to its own entry.
 */
export function startModuleThread(entry: URL): Worker {
  const file = fileURLToPath(entry);
  if (!file.endsWith('.ts')) return new Worker(entry);
  const register = tsxExport(file, './esm/api');
  const bootstrap =
    `import(${JSON.stringify(register)})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, execArgv: [SOURCE_CONDITION] });
}

/**
 * The file URL of the ES module `tsx` exports as `subpath` (`.`: its loader; `./esm/api`: its
 * `register`), found from `from`'s location.
 */
function tsxExport(from: string, subpath: '.' | './esm/api'): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports[subpath];
  const target = typeof exported === 'string' ? exported : exported.import.default;
  return pathToFileURL(path.join(path.dirname(manifest), target)).href;
}

interface TsxManifest {
  readonly exports: Record<'.' | './esm/api', string | { readonly import: { readonly default: string } }>;
}
