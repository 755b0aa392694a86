import type { ModelIssue } from '@odp/core';
import { convertFormat1 } from './format1.js';
import { IssueList } from './issues.js';
import { buildModel, readEnvelope } from './load.js';
import { readRepository } from './read.js';
import { CURRENT_FORMAT } from './schemas.js';

export interface ModelUpgrade {
  /** Every file written in an older definition format, converted; paths relative to the repository root. */
  readonly files: readonly { readonly path: string; readonly content: string }[];
  /** `UPGRADE-REPORT.md`: the converted files and every issue that still needs a person. */
  readonly report: string;
}

export const UPGRADE_REPORT_FILE = 'UPGRADE-REPORT.md';

/**
 * Converts the format-1 files of a repository to the current format, also when the model is refused for
 * reference errors (the report lists them). Throws ValidationError when the repository cannot be read
 * at all.
 */
export async function upgradeModelRepository(
  dir: string,
  now: Date = new Date(),
  maxBytes?: number,
): Promise<ModelUpgrade> {
  const content = await readRepository(dir, maxBytes);
  const files: { path: string; content: string }[] = [];
  const envelopes = new IssueList();
  for (const file of content.modelFiles) {
    const enveloped = readEnvelope(file, envelopes);
    if (!enveloped || enveloped.format === CURRENT_FORMAT || file.text === undefined) continue;
    const original = JSON.parse(file.text) as Record<string, unknown>;
    files.push({ path: file.path, content: `${JSON.stringify(convertFormat1(original).value, null, 2)}\n` });
  }
  const issues = buildModel(content).issues.filter((i) => i.severity !== 'INFO');
  return {
    files,
    report: renderReport(
      files.map((f) => f.path),
      issues,
      now,
    ),
  };
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function renderReport(converted: readonly string[], issues: readonly ModelIssue[], now: Date): string {
  const lines = [
    '# Model upgrade report',
    '',
    `Generated ${now.toISOString()}; current definition format: ${CURRENT_FORMAT}.`,
    '',
    `## Converted files (${converted.length})`,
    '',
  ];
  if (converted.length === 0) lines.push('No file is in an older definition format.');
  for (const path of converted) {
    lines.push(
      `- \`${path}\`: format 1 to ${CURRENT_FORMAT} (fields keyed by name became an array, \`many\` became \`multiple\`, a single \`extends\` became an array)`,
    );
  }
  lines.push('', `## Issues that need a person (${issues.length})`, '');
  if (issues.length === 0) {
    lines.push('None: the model loads without errors or warnings.');
  } else {
    lines.push(
      'Pointers refer to the files as they are in the repository now (before this upgrade).',
      '',
      '| severity | file | path | message |',
      '|---|---|---|---|',
    );
    for (const issue of issues) {
      lines.push(
        `| ${issue.severity} | ${cell(issue.file)} | ${cell(issue.path)} | ${cell(issue.message)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
