import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '@odp/core';

/** Largest model, data or template file read, in bytes. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Most files read from one repository. */
export const MAX_FILES = 20_000;
/**
 * Most bytes read from one repository, all files together, when the caller names no limit
 * (`ODP_MAX_MODEL_BYTES`): the files are held in memory while the model is built.
 */
export const DEFAULT_MAX_REPOSITORY_BYTES = 256 * 1024 * 1024;
/** Files read at the same time. */
const READ_CONCURRENCY = 32;
/** Deepest JSON nesting accepted in a model file. */
export const MAX_JSON_DEPTH = 64;

/** A file of the repository; `path` is relative to the root, with `/` separators. */
export interface RepositoryFile {
  readonly path: string;
  /** The text, or why it could not be read. */
  readonly text?: string;
  readonly problem?: string;
}

export interface RepositoryContent {
  /** Every `*.json` file outside `data/` and `templates/`, sorted by path. */
  readonly modelFiles: readonly RepositoryFile[];
  /** `data/**\/*.json`, sorted by path. */
  readonly dataFiles: readonly RepositoryFile[];
  /** Every file under `templates/`, sorted by path. */
  readonly templateFiles: readonly RepositoryFile[];
  /** Set when the repository holds more files than MAX_FILES (the rest were not read). */
  readonly truncated: boolean;
}

/**
 * Reads a model repository. Hidden entries (`.git`), `node_modules` and symbolic links are skipped, so
 * nothing outside the directory is read. Files past `maxBytes` read in all are not read (each gets a
 * problem, so the load is refused). Throws ValidationError when `dir` is not a readable directory:
 * then nothing of the model can be read at all.
 */
export async function readRepository(
  dir: string,
  maxBytes: number = DEFAULT_MAX_REPOSITORY_BYTES,
): Promise<RepositoryContent> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new ValidationError('The model repository cannot be read: it is not a readable directory.', [
      { field: 'modelSource', message: 'not a readable directory' },
    ]);
  }
  const paths: string[] = [];
  const unreadableDirs: RepositoryFile[] = [];
  let truncated = false;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relativeDir = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(path.join(dir, relativeDir), { withFileTypes: true });
    } catch {
      unreadableDirs.push({ path: relativeDir, problem: 'The directory cannot be read' });
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.isSymbolicLink()) continue;
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) pending.push(relative);
      else if (entry.isFile() && (relative.startsWith('templates/') || entry.name.endsWith('.json'))) {
        if (paths.length < MAX_FILES) paths.push(relative);
        else truncated = true;
      }
    }
  }
  const files: RepositoryFile[] = [];
  const budget = { left: maxBytes, of: maxBytes };
  for (let start = 0; start < paths.length; start += READ_CONCURRENCY) {
    const batch = paths.slice(start, start + READ_CONCURRENCY);
    files.push(...(await Promise.all(batch.map((relative) => readOne(dir, relative, budget)))));
  }
  return repositoryContent([...unreadableDirs, ...files], truncated);
}

/** Sorts a repository's files into model, data and template files, each sorted by path. */
export function repositoryContent(files: readonly RepositoryFile[], truncated: boolean): RepositoryContent {
  const modelFiles: RepositoryFile[] = [];
  const dataFiles: RepositoryFile[] = [];
  const templateFiles: RepositoryFile[] = [];
  for (const file of files) {
    if (file.path.startsWith('templates/')) templateFiles.push(file);
    else if (file.path.startsWith('data/')) dataFiles.push(file);
    else modelFiles.push(file);
  }
  const byPath = (a: RepositoryFile, b: RepositoryFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return {
    modelFiles: modelFiles.sort(byPath),
    dataFiles: dataFiles.sort(byPath),
    templateFiles: templateFiles.sort(byPath),
    truncated,
  };
}

/** The bytes a repository read may still take, of its limit `of`. */
interface ReadBudget {
  left: number;
  readonly of: number;
}

async function readOne(dir: string, relative: string, budget: ReadBudget): Promise<RepositoryFile> {
  try {
    const full = path.join(dir, relative);
    const size = (await stat(full)).size;
    if (size > MAX_FILE_BYTES) {
      return { path: relative, problem: `The file is larger than ${MAX_FILE_BYTES} bytes (${size})` };
    }
    if (size > budget.left) {
      return {
        path: relative,
        problem: `The repository's files are larger than ${budget.of} bytes together; this file was not read`,
      };
    }
    budget.left -= size;
    return { path: relative, text: await readFile(full, 'utf8') };
  } catch {
    return { path: relative, problem: 'The file cannot be read' };
  }
}

/** A parsed JSON file, or the one problem that prevented it. */
export type ParsedJson = { readonly value: unknown } | { readonly problem: string };

/**
 * Parses JSON and refuses nesting deeper than MAX_JSON_DEPTH, so later recursive processing of the
 * value (schema validation, conversion) stays bounded. The depth check is iterative.
 */
export function parseJson(text: string): ParsedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Invalid JSON: ${error instanceof Error ? error.message : 'cannot be parsed'}` };
  }
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return { problem: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return { value };
}
