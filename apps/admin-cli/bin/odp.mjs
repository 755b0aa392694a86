#!/usr/bin/env node
/**
 * The `odp` executable (`bin/odp` in the repository root links here; docs/odp.md).
 *
 * Runs the command compiled to JavaScript: a call then costs Node's own start and the modules the
 * command loads, not pnpm's start (about 0.6 s) and a TypeScript loader (about 0.3 s more) on top.
 * The compiled command is kept in node_modules/.cache/odp-cli and rebuilt here (esbuild, about a
 * second) when it is missing or when a source file it was built from, the lockfile or this launcher
 * changed since, so there is no build step to remember and an edit is never run stale.
 *
 * Like `pnpm odp`, the command runs in the repository root (a relative ODP_DATA_DIR resolves
 * there) and resolves its relative paths (`--model`) against INIT_CWD, the directory it was typed in.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LAUNCHER = fileURLToPath(import.meta.url);
const APP_DIR = path.resolve(path.dirname(LAUNCHER), '..');
const ROOT = path.resolve(APP_DIR, '../..');
const CACHE = path.join(ROOT, 'node_modules/.cache/odp-cli');
const MANIFEST = path.join(CACHE, 'manifest.json');
/** Files the output depends on besides the bundled sources: the installed packages and the build itself. */
const BUILD_INPUTS = [LAUNCHER, path.join(ROOT, 'pnpm-lock.yaml'), path.join(ROOT, 'tsconfig.base.json')];
/** Builds older than this, other than the current one, are removed (a running call may still load its chunks). */
const STALE_BUILD_MS = 10 * 60 * 1000;

/** A digest of the files' paths and modification times (a missing file counts as one state). */
function stampOf(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    let mtime = -1;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      // Deleted since the build: the stamp changes, which is the point.
    }
    hash.update(`${file}\0${mtime}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The compiled entry point when it is up to date with every file it was built from; null otherwise. */
function upToDateEntry() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return null;
  }
  return stampOf(manifest.inputs) === manifest.stamp ? path.join(CACHE, manifest.stamp, 'main.mjs') : null;
}

/**
 * Workspace packages (`@odp/*`, TypeScript sources) are bundled; every other package stays an
 * import of the file its own resolution picks, so it loads exactly as it would under tsx (pnpm
 * keeps a package's dependencies beside it, where the cache directory could not find them by name).
 */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    const self = Symbol('external-packages');
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      const bare = args.path.replace(/^node:/, '');
      if (args.pluginData === self || args.path.startsWith('@odp/') || builtinModules.includes(bare)) {
        return undefined;
      }
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: self,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: true };
    });
  },
};

/**
 * Compiles the command into a directory named after the stamp of its inputs and records it in the
 * manifest (written by rename, so concurrent calls read a whole one). Two calls building at once
 * both succeed: the second finds the directory of the first and keeps it.
 */
async function build() {
  const { build: esbuild } = await import('esbuild');
  const startedAt = Date.now();
  const scratch = path.join(CACHE, `build-${process.pid}-${startedAt}`);
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: [path.join(APP_DIR, 'src/main.ts')],
    outdir: scratch,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Workspace packages are bundled from their TypeScript sources (their `@odp/source` export).
    conditions: ['@odp/source'],
    metafile: true,
    logLevel: 'error',
    plugins: [externalPackages],
  });
  const inputs = [
    ...Object.keys(result.metafile.inputs).map((input) => path.resolve(ROOT, input)),
    ...BUILD_INPUTS,
  ];
  const stamp = stampOf(inputs);
  const target = path.join(CACHE, stamp);
  try {
    renameSync(scratch, target);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // built by a concurrent call
  }
  // A source saved while it was being compiled may not be in the output: leave the manifest as it
  // was, so that the next call compiles again.
  if (inputs.every((input) => !(statSync(input, { throwIfNoEntry: false })?.mtimeMs > startedAt))) {
    const next = `${MANIFEST}.${process.pid}`;
    writeFileSync(next, JSON.stringify({ stamp, inputs }));
    renameSync(next, MANIFEST);
  }
  for (const entry of readdirSync(CACHE)) {
    const file = path.join(CACHE, entry);
    if (entry === stamp || file === MANIFEST) continue;
    if (Date.now() - statSync(file).mtimeMs > STALE_BUILD_MS) rmSync(file, { recursive: true, force: true });
  }
  return path.join(target, 'main.mjs');
}

const entry = upToDateEntry() ?? (await build());
process.env['INIT_CWD'] ??= process.cwd();
process.chdir(ROOT);
await import(pathToFileURL(entry).href);
