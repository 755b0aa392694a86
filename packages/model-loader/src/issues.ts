import type { IssueSeverity, ModelIssue } from '@odp/core';

/** Maps a JSON pointer into a file as converted in memory back to the file as written. */
export type PointerTranslation = (pointer: string) => string;

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Collects the issues of one load, in the order found, each at most once. */
export class IssueList {
  private readonly found: ModelIssue[] = [];
  private readonly seen = new Set<string>();
  private readonly translations = new Map<string, PointerTranslation>();

  /** Pointers of later issues in `file` are translated (format-1 files converted in memory). */
  translate(file: string, translation: PointerTranslation): void {
    this.translations.set(file, translation);
  }

  add(severity: IssueSeverity, file: string, path: string, message: string): void {
    const translated = this.translations.get(file)?.(path) ?? path;
    const key = `${severity}\u0000${file}\u0000${translated}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.found.push({ severity, file, path: translated, message });
  }

  error(file: string, path: string, message: string): void {
    this.add('ERROR', file, path, message);
  }

  warning(file: string, path: string, message: string): void {
    this.add('WARNING', file, path, message);
  }

  info(file: string, path: string, message: string): void {
    this.add('INFO', file, path, message);
  }

  get hasErrors(): boolean {
    return this.found.some((i) => i.severity === 'ERROR');
  }

  get all(): readonly ModelIssue[] {
    return this.found;
  }
}
