/**
 * Modules run in another JavaScript context (a task's process, a thread): which file, and how to
 * load it. Where the platform runs from its TypeScript sources, the module is a `.ts` file loaded
 * through `tsx`, its workspace imports resolved to their sources by the `@odp/source` export
 * condition; once built, the `.js` beside its caller, loaded as it is.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

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
  return file.endsWith('.ts') ? ['--import', tsxLoader(file), '--conditions=@odp/source'] : [];
}

/** The ES module loader of `tsx`, found from `from`'s location (the `import` of its package root). */
function tsxLoader(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports['.'];
  return pathToFileURL(path.join(path.dirname(manifest), exports)).href;
}

interface TsxManifest {
  readonly exports: { readonly '.': string };
}
