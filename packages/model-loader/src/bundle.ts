/**
 * A model version as the platform registry stores it: the repository's files in one JSON bundle,
 * `{"format": 1, "files": {"<path>": "<text>", ...}}` with the paths sorted, addressed by the
 * SHA-256 of that text (`sha256:<hex>`), so the same files are always the same version. A bundle is
 * made only of a model that loaded, and only up to a size (`ODP_MAX_MODEL_VERSION_BYTES`): a larger
 * one is refused like any other invalid model, so it never becomes a version.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '@odp/core';
import type { ModelLoadResult } from './load.js';
import { buildModel } from './load.js';
import type { RepositoryContent, RepositoryFile } from './read.js';
import { repositoryContent } from './read.js';

const BUNDLE_FORMAT = 1;

export interface ModelBundle {
  /** `sha256:<hex>` of `text`. */
  readonly hash: string;
  /** The JSON text stored in the registry. */
  readonly text: string;
  readonly bytes: number;
}

/** A model checked for a new version: its load result and, when it loaded, its bundle. */
export interface ModelCandidate {
  /** The load; refused (no model, an ERROR issue) when the bundle is larger than allowed. */
  readonly result: ModelLoadResult;
  /** Present exactly when `result.model` is. */
  readonly bundle?: ModelBundle;
}

/** The bundle of repository content (files that could not be read are left out). */
export function bundleOf(content: RepositoryContent): ModelBundle {
  const files = [...content.modelFiles, ...content.dataFiles, ...content.templateFiles]
    .filter((file): file is RepositoryFile & { text: string } => file.text !== undefined)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const text = JSON.stringify({
    format: BUNDLE_FORMAT,
    files: Object.fromEntries(files.map((file) => [file.path, file.text])),
  });
  return {
    hash: `sha256:${createHash('sha256').update(text).digest('hex')}`,
    text,
    bytes: Buffer.byteLength(text),
  };
}

/** The repository content of a stored bundle; ValidationError when the text is not a bundle. */
export function contentOfBundle(text: string): RepositoryContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const files = (parsed as { files?: unknown } | null)?.files;
  if ((parsed as { format?: unknown } | null)?.format !== BUNDLE_FORMAT || !isTextRecord(files)) {
    throw new ValidationError('The stored model version is not a model bundle.');
  }
  return repositoryContent(
    Object.entries(files).map(([path, fileText]) => ({ path, text: fileText })),
    false,
  );
}

/** The model of a stored bundle, validated as any repository is. */
export function loadModelBundle(text: string): ModelLoadResult {
  return buildModel(contentOfBundle(text));
}

/**
 * Validates repository content as a candidate version: builds the model and, when it loads, its
 * bundle, refused when larger than `maxBundleBytes`.
 */
export function modelCandidate(content: RepositoryContent, maxBundleBytes: number): ModelCandidate {
  const result = buildModel(content);
  if (result.model === undefined) return { result };
  const bundle = bundleOf(content);
  if (bundle.bytes <= maxBundleBytes) return { result, bundle };
  const message = `The model's files take ${bundle.bytes} bytes as a model version; at most ${maxBundleBytes} are stored (ODP_MAX_MODEL_VERSION_BYTES)`;
  const issues = [{ severity: 'ERROR' as const, file: '', path: '', message }, ...result.issues];
  return { result: { issues, upgradableFiles: result.upgradableFiles } };
}

function isTextRecord(value: unknown): value is Record<string, string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}
